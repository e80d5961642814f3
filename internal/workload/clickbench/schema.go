package clickbench

import (
	"fmt"
	"strings"
)

// Dialects the schema and the queries are written for.
const (
	SQLite       = "sqlite"
	Postgres     = "postgres"
	ClickHouse   = "clickhouse"       // a current ClickHouse (25.x), as ClickBench runs it: the primary dialect
	ClickHouse18 = "clickhouse-18.16" // Debian's 18.16, the only server obtainable on the test machines
)

// dialects lists every dialect.
var dialects = []string{SQLite, Postgres, ClickHouse, ClickHouse18}

// Table is the one table ClickBench queries.
const Table = "hits"

// columns are hits' columns in the order of ClickBench's create.sql, with the
// SQL types it declares for them (the same in its clickhouse, postgresql and
// sqlite directories).
var columns = [...][2]string{
	{"WatchID", "BIGINT"}, {"JavaEnable", "SMALLINT"}, {"Title", "TEXT"}, {"GoodEvent", "SMALLINT"},
	{"EventTime", "TIMESTAMP"}, {"EventDate", "Date"}, {"CounterID", "INTEGER"}, {"ClientIP", "INTEGER"},
	{"RegionID", "INTEGER"}, {"UserID", "BIGINT"}, {"CounterClass", "SMALLINT"}, {"OS", "SMALLINT"},
	{"UserAgent", "SMALLINT"}, {"URL", "TEXT"}, {"Referer", "TEXT"}, {"IsRefresh", "SMALLINT"},
	{"RefererCategoryID", "SMALLINT"}, {"RefererRegionID", "INTEGER"}, {"URLCategoryID", "SMALLINT"}, {"URLRegionID", "INTEGER"},
	{"ResolutionWidth", "SMALLINT"}, {"ResolutionHeight", "SMALLINT"}, {"ResolutionDepth", "SMALLINT"}, {"FlashMajor", "SMALLINT"},
	{"FlashMinor", "SMALLINT"}, {"FlashMinor2", "TEXT"}, {"NetMajor", "SMALLINT"}, {"NetMinor", "SMALLINT"},
	{"UserAgentMajor", "SMALLINT"}, {"UserAgentMinor", "VARCHAR(255)"}, {"CookieEnable", "SMALLINT"}, {"JavascriptEnable", "SMALLINT"},
	{"IsMobile", "SMALLINT"}, {"MobilePhone", "SMALLINT"}, {"MobilePhoneModel", "TEXT"}, {"Params", "TEXT"},
	{"IPNetworkID", "INTEGER"}, {"TraficSourceID", "SMALLINT"}, {"SearchEngineID", "SMALLINT"}, {"SearchPhrase", "TEXT"},
	{"AdvEngineID", "SMALLINT"}, {"IsArtifical", "SMALLINT"}, {"WindowClientWidth", "SMALLINT"}, {"WindowClientHeight", "SMALLINT"},
	{"ClientTimeZone", "SMALLINT"}, {"ClientEventTime", "TIMESTAMP"}, {"SilverlightVersion1", "SMALLINT"}, {"SilverlightVersion2", "SMALLINT"},
	{"SilverlightVersion3", "INTEGER"}, {"SilverlightVersion4", "SMALLINT"}, {"PageCharset", "TEXT"}, {"CodeVersion", "INTEGER"},
	{"IsLink", "SMALLINT"}, {"IsDownload", "SMALLINT"}, {"IsNotBounce", "SMALLINT"}, {"FUniqID", "BIGINT"},
	{"OriginalURL", "TEXT"}, {"HID", "INTEGER"}, {"IsOldCounter", "SMALLINT"}, {"IsEvent", "SMALLINT"},
	{"IsParameter", "SMALLINT"}, {"DontCountHits", "SMALLINT"}, {"WithHash", "SMALLINT"}, {"HitColor", "CHAR"},
	{"LocalEventTime", "TIMESTAMP"}, {"Age", "SMALLINT"}, {"Sex", "SMALLINT"}, {"Income", "SMALLINT"},
	{"Interests", "SMALLINT"}, {"Robotness", "SMALLINT"}, {"RemoteIP", "INTEGER"}, {"WindowName", "INTEGER"},
	{"OpenerName", "INTEGER"}, {"HistoryLength", "SMALLINT"}, {"BrowserLanguage", "TEXT"}, {"BrowserCountry", "TEXT"},
	{"SocialNetwork", "TEXT"}, {"SocialAction", "TEXT"}, {"HTTPError", "SMALLINT"}, {"SendTiming", "INTEGER"},
	{"DNSTiming", "INTEGER"}, {"ConnectTiming", "INTEGER"}, {"ResponseStartTiming", "INTEGER"}, {"ResponseEndTiming", "INTEGER"},
	{"FetchTiming", "INTEGER"}, {"SocialSourceNetworkID", "SMALLINT"}, {"SocialSourcePage", "TEXT"}, {"ParamPrice", "BIGINT"},
	{"ParamOrderID", "TEXT"}, {"ParamCurrency", "TEXT"}, {"ParamCurrencyID", "SMALLINT"}, {"OpenstatServiceName", "TEXT"},
	{"OpenstatCampaignID", "TEXT"}, {"OpenstatAdID", "TEXT"}, {"OpenstatSourceID", "TEXT"}, {"UTMSource", "TEXT"},
	{"UTMMedium", "TEXT"}, {"UTMCampaign", "TEXT"}, {"UTMContent", "TEXT"}, {"UTMTerm", "TEXT"},
	{"FromTag", "TEXT"}, {"HasGCLID", "SMALLINT"}, {"RefererHash", "BIGINT"}, {"URLHash", "BIGINT"},
	{"CLID", "INTEGER"},
}

// native are the ClickHouse types 18.16 needs instead of the SQL-standard
// names, which it does not know (the recipe's clickbench-create-18.16.sql;
// a current ClickHouse maps the standard names to exactly these).
var native = map[string]string{
	"BIGINT": "Int64", "INTEGER": "Int32", "SMALLINT": "Int16", "TEXT": "String",
	"VARCHAR(255)": "String", "CHAR": "FixedString(1)", "TIMESTAMP": "DateTime", "Date": "Date",
}

// sortKey is ClickBench's primary key in ClickHouse and SQLite, and the
// ORDER BY key 18.16 needs.
const sortKey = "CounterID, EventDate, UserID, EventTime, WatchID"

// Columns returns hits' 105 column names in create.sql's order, which is the
// order of every row source's values.
func Columns() []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c[0]
	}
	return out
}

// LoadColumns returns the column names to give a driver's bulk load in
// dialect, in Columns' order. PostgreSQL folds the unquoted names of
// ClickBench's create.sql to lower case, and fairbench's PostgreSQL driver
// quotes the names of a COPY's columns, so there they are lower case; the
// other engines take Columns as they are.
func LoadColumns(dialect string) []string {
	cols := Columns()
	if dialect == Postgres {
		for i, c := range cols {
			cols[i] = strings.ToLower(c)
		}
	}
	return cols
}

// tableDeviations says, per dialect, how CreateTable's statement differs from
// ClickBench's create.sql for that system; none for SQLite and PostgreSQL.
var tableDeviations = map[string]string{
	ClickHouse: "CREATE TABLE instead of CREATE OR REPLACE TABLE (fairbench never replaces a table it did not create), " +
		"and without the auto_statistics_types = '' setting ClickBench added in May 2026 for newer servers, " +
		"which a server that does not know the setting refuses",
	ClickHouse18: "native types (Int64, Int32, Int16, String, FixedString(1), DateTime) instead of the SQL-standard names " +
		"and ENGINE = MergeTree ORDER BY (the primary key's columns) instead of PRIMARY KEY in the column list, " +
		"neither of which 18.16 accepts; no fsync_after_insert setting, which 18.16 does not have",
}

// CreateTable returns the CREATE TABLE statement of hits in dialect.
func CreateTable(dialect string) (string, error) {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + Table + " (")
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		switch dialect {
		case SQLite, Postgres, ClickHouse:
			fmt.Fprintf(&b, "%s %s NOT NULL", c[0], c[1])
		case ClickHouse18:
			fmt.Fprintf(&b, "%s %s", c[0], native[c[1]])
		default:
			return "", fmt.Errorf("clickbench: unknown dialect %q", dialect)
		}
	}
	switch dialect {
	case SQLite:
		// ClickBench's sqlite/create.sql keeps the primary key, its
		// postgresql/create.sql does not.
		b.WriteString(", PRIMARY KEY (" + sortKey + "))")
	case Postgres:
		b.WriteString(")")
	case ClickHouse:
		b.WriteString(", PRIMARY KEY (" + sortKey + ")) ENGINE = MergeTree SETTINGS fsync_after_insert = 1")
	case ClickHouse18:
		b.WriteString(") ENGINE = MergeTree ORDER BY (" + sortKey + ")")
	}
	return b.String(), nil
}
