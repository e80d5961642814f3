package clickbench

import "strings"

// Query is one of ClickBench's 43 queries, named Q0…Q42 after its line in
// ClickBench's queries.sql (the first line is Q0, as ClickBench's results
// count them).
type Query struct {
	Name string
	// SQL per dialect; "" or missing means the query does not run there.
	SQL map[string]string
	// Deviations per dialect: how the text differs from ClickBench's own
	// query for that system; "" when it is ClickBench's text.
	Deviations map[string]string
}

// Queries are the 43 queries in ClickBench's order. The texts for SQLite,
// PostgreSQL and ClickHouse are ClickBench's lines for those systems without
// the closing semicolon; PostgreSQL's file repeats ClickHouse's line for
// line. Two of ClickBench's own SQLite texts cannot give ClickHouse's
// answer, and are kept as ClickBench runs them: Q18 and Q42 take
// strftime('%M'), the minute of the hour, so Q42 has at most 60 groups and
// its OFFSET 1000 leaves it empty on any data.
var Queries = build()

// clickhouseText is clickhouse/queries.sql (and postgresql/queries.sql).
var clickhouseText = [43]string{
	/* Q0 */ `SELECT COUNT(*) FROM hits`,
	/* Q1 */ `SELECT COUNT(*) FROM hits WHERE AdvEngineID <> 0`,
	/* Q2 */ `SELECT SUM(AdvEngineID), COUNT(*), AVG(ResolutionWidth) FROM hits`,
	/* Q3 */ `SELECT AVG(UserID) FROM hits`,
	/* Q4 */ `SELECT COUNT(DISTINCT UserID) FROM hits`,
	/* Q5 */ `SELECT COUNT(DISTINCT SearchPhrase) FROM hits`,
	/* Q6 */ `SELECT MIN(EventDate), MAX(EventDate) FROM hits`,
	/* Q7 */ `SELECT AdvEngineID, COUNT(*) FROM hits WHERE AdvEngineID <> 0 GROUP BY AdvEngineID ORDER BY COUNT(*) DESC`,
	/* Q8 */ `SELECT RegionID, COUNT(DISTINCT UserID) AS u FROM hits GROUP BY RegionID ORDER BY u DESC LIMIT 10`,
	/* Q9 */ `SELECT RegionID, SUM(AdvEngineID), COUNT(*) AS c, AVG(ResolutionWidth), COUNT(DISTINCT UserID) FROM hits GROUP BY RegionID ORDER BY c DESC LIMIT 10`,
	/* Q10 */ `SELECT MobilePhoneModel, COUNT(DISTINCT UserID) AS u FROM hits WHERE MobilePhoneModel <> '' GROUP BY MobilePhoneModel ORDER BY u DESC LIMIT 10`,
	/* Q11 */ `SELECT MobilePhone, MobilePhoneModel, COUNT(DISTINCT UserID) AS u FROM hits WHERE MobilePhoneModel <> '' GROUP BY MobilePhone, MobilePhoneModel ORDER BY u DESC LIMIT 10`,
	/* Q12 */ `SELECT SearchPhrase, COUNT(*) AS c FROM hits WHERE SearchPhrase <> '' GROUP BY SearchPhrase ORDER BY c DESC LIMIT 10`,
	/* Q13 */ `SELECT SearchPhrase, COUNT(DISTINCT UserID) AS u FROM hits WHERE SearchPhrase <> '' GROUP BY SearchPhrase ORDER BY u DESC LIMIT 10`,
	/* Q14 */ `SELECT SearchEngineID, SearchPhrase, COUNT(*) AS c FROM hits WHERE SearchPhrase <> '' GROUP BY SearchEngineID, SearchPhrase ORDER BY c DESC LIMIT 10`,
	/* Q15 */ `SELECT UserID, COUNT(*) FROM hits GROUP BY UserID ORDER BY COUNT(*) DESC LIMIT 10`,
	/* Q16 */ `SELECT UserID, SearchPhrase, COUNT(*) FROM hits GROUP BY UserID, SearchPhrase ORDER BY COUNT(*) DESC LIMIT 10`,
	/* Q17 */ `SELECT UserID, SearchPhrase, COUNT(*) FROM hits GROUP BY UserID, SearchPhrase LIMIT 10`,
	/* Q18 */ `SELECT UserID, extract(minute FROM EventTime) AS m, SearchPhrase, COUNT(*) FROM hits GROUP BY UserID, m, SearchPhrase ORDER BY COUNT(*) DESC LIMIT 10`,
	/* Q19 */ `SELECT UserID FROM hits WHERE UserID = 435090932899640449`,
	/* Q20 */ `SELECT COUNT(*) FROM hits WHERE URL LIKE '%google%'`,
	/* Q21 */ `SELECT SearchPhrase, MIN(URL), COUNT(*) AS c FROM hits WHERE URL LIKE '%google%' AND SearchPhrase <> '' GROUP BY SearchPhrase ORDER BY c DESC LIMIT 10`,
	/* Q22 */ `SELECT SearchPhrase, MIN(URL), MIN(Title), COUNT(*) AS c, COUNT(DISTINCT UserID) FROM hits WHERE Title LIKE '%Google%' AND URL NOT LIKE '%.google.%' AND SearchPhrase <> '' GROUP BY SearchPhrase ORDER BY c DESC LIMIT 10`,
	/* Q23 */ `SELECT * FROM hits WHERE URL LIKE '%google%' ORDER BY EventTime LIMIT 10`,
	/* Q24 */ `SELECT SearchPhrase FROM hits WHERE SearchPhrase <> '' ORDER BY EventTime LIMIT 10`,
	/* Q25 */ `SELECT SearchPhrase FROM hits WHERE SearchPhrase <> '' ORDER BY SearchPhrase LIMIT 10`,
	/* Q26 */ `SELECT SearchPhrase FROM hits WHERE SearchPhrase <> '' ORDER BY EventTime, SearchPhrase LIMIT 10`,
	/* Q27 */ `SELECT CounterID, AVG(length(URL)) AS l, COUNT(*) AS c FROM hits WHERE URL <> '' GROUP BY CounterID HAVING COUNT(*) > 100000 ORDER BY l DESC LIMIT 25`,
	/* Q28 */ `SELECT REGEXP_REPLACE(Referer, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k, AVG(length(Referer)) AS l, COUNT(*) AS c, MIN(Referer) FROM hits WHERE Referer <> '' GROUP BY k HAVING COUNT(*) > 100000 ORDER BY l DESC LIMIT 25`,
	/* Q29 */ `SELECT SUM(ResolutionWidth), SUM(ResolutionWidth + 1), SUM(ResolutionWidth + 2), SUM(ResolutionWidth + 3), SUM(ResolutionWidth + 4), SUM(ResolutionWidth + 5), SUM(ResolutionWidth + 6), SUM(ResolutionWidth + 7), SUM(ResolutionWidth + 8), SUM(ResolutionWidth + 9), SUM(ResolutionWidth + 10), SUM(ResolutionWidth + 11), SUM(ResolutionWidth + 12), SUM(ResolutionWidth + 13), SUM(ResolutionWidth + 14), SUM(ResolutionWidth + 15), SUM(ResolutionWidth + 16), SUM(ResolutionWidth + 17), SUM(ResolutionWidth + 18), SUM(ResolutionWidth + 19), SUM(ResolutionWidth + 20), SUM(ResolutionWidth + 21), SUM(ResolutionWidth + 22), SUM(ResolutionWidth + 23), SUM(ResolutionWidth + 24), SUM(ResolutionWidth + 25), SUM(ResolutionWidth + 26), SUM(ResolutionWidth + 27), SUM(ResolutionWidth + 28), SUM(ResolutionWidth + 29), SUM(ResolutionWidth + 30), SUM(ResolutionWidth + 31), SUM(ResolutionWidth + 32), SUM(ResolutionWidth + 33), SUM(ResolutionWidth + 34), SUM(ResolutionWidth + 35), SUM(ResolutionWidth + 36), SUM(ResolutionWidth + 37), SUM(ResolutionWidth + 38), SUM(ResolutionWidth + 39), SUM(ResolutionWidth + 40), SUM(ResolutionWidth + 41), SUM(ResolutionWidth + 42), SUM(ResolutionWidth + 43), SUM(ResolutionWidth + 44), SUM(ResolutionWidth + 45), SUM(ResolutionWidth + 46), SUM(ResolutionWidth + 47), SUM(ResolutionWidth + 48), SUM(ResolutionWidth + 49), SUM(ResolutionWidth + 50), SUM(ResolutionWidth + 51), SUM(ResolutionWidth + 52), SUM(ResolutionWidth + 53), SUM(ResolutionWidth + 54), SUM(ResolutionWidth + 55), SUM(ResolutionWidth + 56), SUM(ResolutionWidth + 57), SUM(ResolutionWidth + 58), SUM(ResolutionWidth + 59), SUM(ResolutionWidth + 60), SUM(ResolutionWidth + 61), SUM(ResolutionWidth + 62), SUM(ResolutionWidth + 63), SUM(ResolutionWidth + 64), SUM(ResolutionWidth + 65), SUM(ResolutionWidth + 66), SUM(ResolutionWidth + 67), SUM(ResolutionWidth + 68), SUM(ResolutionWidth + 69), SUM(ResolutionWidth + 70), SUM(ResolutionWidth + 71), SUM(ResolutionWidth + 72), SUM(ResolutionWidth + 73), SUM(ResolutionWidth + 74), SUM(ResolutionWidth + 75), SUM(ResolutionWidth + 76), SUM(ResolutionWidth + 77), SUM(ResolutionWidth + 78), SUM(ResolutionWidth + 79), SUM(ResolutionWidth + 80), SUM(ResolutionWidth + 81), SUM(ResolutionWidth + 82), SUM(ResolutionWidth + 83), SUM(ResolutionWidth + 84), SUM(ResolutionWidth + 85), SUM(ResolutionWidth + 86), SUM(ResolutionWidth + 87), SUM(ResolutionWidth + 88), SUM(ResolutionWidth + 89) FROM hits`,
	/* Q30 */ `SELECT SearchEngineID, ClientIP, COUNT(*) AS c, SUM(IsRefresh), AVG(ResolutionWidth) FROM hits WHERE SearchPhrase <> '' GROUP BY SearchEngineID, ClientIP ORDER BY c DESC LIMIT 10`,
	/* Q31 */ `SELECT WatchID, ClientIP, COUNT(*) AS c, SUM(IsRefresh), AVG(ResolutionWidth) FROM hits WHERE SearchPhrase <> '' GROUP BY WatchID, ClientIP ORDER BY c DESC LIMIT 10`,
	/* Q32 */ `SELECT WatchID, ClientIP, COUNT(*) AS c, SUM(IsRefresh), AVG(ResolutionWidth) FROM hits GROUP BY WatchID, ClientIP ORDER BY c DESC LIMIT 10`,
	/* Q33 */ `SELECT URL, COUNT(*) AS c FROM hits GROUP BY URL ORDER BY c DESC LIMIT 10`,
	/* Q34 */ `SELECT 1, URL, COUNT(*) AS c FROM hits GROUP BY 1, URL ORDER BY c DESC LIMIT 10`,
	/* Q35 */ `SELECT ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3, COUNT(*) AS c FROM hits GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3 ORDER BY c DESC LIMIT 10`,
	/* Q36 */ `SELECT URL, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31' AND DontCountHits = 0 AND IsRefresh = 0 AND URL <> '' GROUP BY URL ORDER BY PageViews DESC LIMIT 10`,
	/* Q37 */ `SELECT Title, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31' AND DontCountHits = 0 AND IsRefresh = 0 AND Title <> '' GROUP BY Title ORDER BY PageViews DESC LIMIT 10`,
	/* Q38 */ `SELECT URL, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31' AND IsRefresh = 0 AND IsLink <> 0 AND IsDownload = 0 GROUP BY URL ORDER BY PageViews DESC LIMIT 10 OFFSET 1000`,
	/* Q39 */ `SELECT TraficSourceID, SearchEngineID, AdvEngineID, CASE WHEN (SearchEngineID = 0 AND AdvEngineID = 0) THEN Referer ELSE '' END AS Src, URL AS Dst, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31' AND IsRefresh = 0 GROUP BY TraficSourceID, SearchEngineID, AdvEngineID, Src, Dst ORDER BY PageViews DESC LIMIT 10 OFFSET 1000`,
	/* Q40 */ `SELECT URLHash, EventDate, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31' AND IsRefresh = 0 AND TraficSourceID IN (-1, 6) AND RefererHash = 3594120000172545465 GROUP BY URLHash, EventDate ORDER BY PageViews DESC LIMIT 10 OFFSET 100`,
	/* Q41 */ `SELECT WindowClientWidth, WindowClientHeight, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-01' AND EventDate <= '2013-07-31' AND IsRefresh = 0 AND DontCountHits = 0 AND URLHash = 2868770270353813622 GROUP BY WindowClientWidth, WindowClientHeight ORDER BY PageViews DESC LIMIT 10 OFFSET 10000`,
	/* Q42 */ `SELECT DATE_TRUNC('minute', EventTime) AS M, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-14' AND EventDate <= '2013-07-15' AND IsRefresh = 0 AND DontCountHits = 0 GROUP BY DATE_TRUNC('minute', EventTime) ORDER BY DATE_TRUNC('minute', EventTime) LIMIT 10 OFFSET 1000`,
}

// sqliteText holds the lines where sqlite/queries.sql differs from
// clickhouse/queries.sql.
var sqliteText = map[int]string{
	18: `SELECT UserID, strftime('%M', EventTime) AS m, SearchPhrase, COUNT(*) FROM hits GROUP BY UserID, m, SearchPhrase ORDER BY COUNT(*) DESC LIMIT 10`,
	28: `SELECT IIF(SUBSTR(host, 1, 4) = 'www.', SUBSTR(host, 5), host) AS k, AVG(length(Referer)) AS l, COUNT(*) AS c, MIN(Referer) FROM (SELECT Referer, IIF(INSTR(host_path, '/') > 0, SUBSTR(host_path, 1, INSTR(host_path, '/') - 1), host_path) AS host FROM (SELECT Referer, IIF(INSTR(Referer, '://') > 0, SUBSTR(Referer, INSTR(Referer, '://') + 3), Referer) AS host_path FROM hits WHERE Referer <> '')) GROUP BY k HAVING COUNT(*) > 100000 ORDER BY l DESC LIMIT 25`,
	42: `SELECT strftime('%M', EventTime) AS M, COUNT(*) AS PageViews FROM hits WHERE CounterID = 62 AND EventDate >= '2013-07-14' AND EventDate <= '2013-07-15' AND IsRefresh = 0 AND DontCountHits = 0 GROUP BY strftime('%M', EventTime) ORDER BY strftime('%M', EventTime) LIMIT 10 OFFSET 1000`,
}

// ch18 holds the 18.16 rewrites, measured on the test server (the recipe
// shared/peers/recipes/C-clickhouse.sh ran the other 41 unchanged).
var ch18 = map[int][2]string{
	// 18.16 reads a backslash before a character without an escape meaning
	// as that character alone ('\1' is "1"): the backslashes are doubled to
	// reach the regular expression as ClickBench's text means them.
	28: {strings.Replace(strings.Replace(clickhouseText[28], "REGEXP_REPLACE(", "replaceRegexpAll(", 1), `\`, `\\`, -1),
		"replaceRegexpAll instead of REGEXP_REPLACE, which 18.16 does not know, with the backslashes of the pattern " +
			"and of the replacement doubled, as 18.16 drops a backslash before a character that has no escape meaning"},
	42: {strings.Replace(clickhouseText[42], "DATE_TRUNC('minute', EventTime)", "toStartOfMinute(EventTime)", -1),
		"toStartOfMinute(EventTime) instead of DATE_TRUNC('minute', EventTime), which 18.16 does not know"},
}

func build() []Query {
	out := make([]Query, len(clickhouseText))
	for i, text := range clickhouseText {
		q := Query{
			Name:       "Q" + itoa(i),
			SQL:        map[string]string{SQLite: text, Postgres: text, ClickHouse: text, ClickHouse18: text},
			Deviations: map[string]string{},
		}
		if s, ok := sqliteText[i]; ok {
			q.SQL[SQLite] = s
		}
		if r, ok := ch18[i]; ok {
			q.SQL[ClickHouse18], q.Deviations[ClickHouse18] = r[0], r[1]
		}
		out[i] = q
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// queryNamed returns the query called name ("Q28").
func queryNamed(name string) (Query, bool) {
	for _, q := range Queries {
		if q.Name == name {
			return q, true
		}
	}
	return Query{}, false
}
