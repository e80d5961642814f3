// Package store is fairbench's results store: an embedded SQLite file
// (fairbench.db by default), or a schema in a shared PostgreSQL database
// (postgres://… URL, see postgres.go), that holds every run as soon as it ends, the study
// files that produced them, and each run's lossless histograms and per-second
// series, so that analysis and reports can be recomputed at any time from what
// was measured rather than from what was printed.
//
// The file carries its schema version in a meta table. Opening it migrates an
// older file forward; a newer file, or an SQLite file that some other program
// owns, is refused before anything is written into it.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// application marks a meta table as ours: a table named meta alone could belong
// to anything.
const application = "fairbench"

// migrations[i] brings a file from schema version i to i+1. Append only: a
// released migration is never edited, because files in the field already ran it.
var migrations = []string{
	// 1: initial schema.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE studies (
	hash     TEXT PRIMARY KEY,
	name     TEXT NOT NULL,
	file     TEXT NOT NULL,
	content  BLOB NOT NULL,
	saved_at TEXT NOT NULL
);
CREATE TABLE runs (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	source       TEXT NOT NULL,
	study_name   TEXT NOT NULL,
	study_hash   TEXT NOT NULL,
	cell_key     TEXT NOT NULL,
	cell_index   INTEGER NOT NULL,
	target       TEXT NOT NULL,
	target_url   TEXT NOT NULL,
	workload     TEXT NOT NULL,
	kind         TEXT NOT NULL,
	params       TEXT NOT NULL,
	clients      INTEGER NOT NULL,
	repetition   INTEGER NOT NULL,
	status       TEXT NOT NULL,
	error        TEXT NOT NULL,
	started_at   TEXT,
	ended_at     TEXT,
	warmup_ns    INTEGER NOT NULL,
	duration_ns  INTEGER NOT NULL,
	tool_version TEXT NOT NULL,
	env          TEXT NOT NULL,
	deviations   TEXT NOT NULL,
	summary      TEXT NOT NULL
);
CREATE INDEX runs_study_cell ON runs (study_hash, cell_key);
CREATE TABLE run_ops (
	run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,
	name      TEXT NOT NULL,
	count     INTEGER NOT NULL,
	errors    TEXT NOT NULL,
	histogram BLOB,
	PRIMARY KEY (run_id, position)
);
CREATE TABLE run_series (
	run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	second     INTEGER NOT NULL,
	ops        INTEGER NOT NULL,
	errors     INTEGER NOT NULL,
	rate       REAL NOT NULL,
	mean_us    REAL NOT NULL,
	p50_us     REAL NOT NULL,
	p95_us     REAL NOT NULL,
	p99_us     REAL NOT NULL,
	max_us     REAL NOT NULL,
	client_cpu REAL NOT NULL
);
CREATE INDEX run_series_run ON run_series (run_id, second);
`,
	// 2: server-side samples from a target's node_exporter, next to throughput
	// (NULL where the target named none).
	`
ALTER TABLE run_series ADD COLUMN server_cpu REAL;
ALTER TABLE run_series ADD COLUMN server_disk_util REAL;
ALTER TABLE run_series ADD COLUMN server_net_rx REAL;
ALTER TABLE run_series ADD COLUMN server_net_tx REAL;
`,
	// 3: requests carry items and bytes (a _bulk of 5 000 documents is one
	// request of 5 000 items), and each second keeps its interval histogram per
	// op type (JSON of []result.IntervalOp), so that series merge exactly.
	// Older rows keep 0 and NULL: their series still report, but do not merge.
	`
ALTER TABLE run_ops ADD COLUMN items INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_ops ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_series ADD COLUMN hists TEXT;
`,
	// 4: the files import stored, by the SHA-256 of their content, so that
	// importing the same output again is skipped unless asked for. The runs
	// of a file and its row here are written in one transaction.
	`
CREATE TABLE imported_files (
	hash        TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	study_name  TEXT NOT NULL,
	target      TEXT NOT NULL,
	runs        INTEGER NOT NULL,
	imported_at TEXT NOT NULL
);
`,
	// 5: in rate mode an op type's service times (from the actual send)
	// are kept beside its latencies (from the scheduled start), as OSB
	// reports both; NULL in a closed loop, where they are the same.
	`
ALTER TABLE run_ops ADD COLUMN service_histogram BLOB;
`,
	// 6: coordination of several load generators per cell (coord.go): a
	// coordinator's session, the generators that joined it, the cells it
	// published and each generator's partial run of each cell. Times are
	// the store's clock (the PostgreSQL server's), as text in timeLayout.
	`
CREATE TABLE coord_sessions (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	study_hash  TEXT NOT NULL,
	study_name  TEXT NOT NULL,
	seed        TEXT NOT NULL,
	generators  INTEGER NOT NULL,
	status      TEXT NOT NULL,
	created_at  TEXT NOT NULL,
	seen_at     TEXT NOT NULL,
	ended_at    TEXT
);
CREATE INDEX coord_sessions_study ON coord_sessions (study_hash, status);
CREATE TABLE coord_generators (
	session_id      INTEGER NOT NULL REFERENCES coord_sessions (id) ON DELETE CASCADE,
	generator       INTEGER NOT NULL,
	host            TEXT NOT NULL,
	pid             INTEGER NOT NULL,
	registered_at   TEXT NOT NULL,
	seen_at         TEXT NOT NULL,
	clock_offset_ns INTEGER NOT NULL,
	clock_rtt_ns    INTEGER NOT NULL,
	PRIMARY KEY (session_id, generator)
);
CREATE TABLE coord_cells (
	session_id INTEGER NOT NULL REFERENCES coord_sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	cell_key   TEXT NOT NULL,
	status     TEXT NOT NULL,
	start_at   TEXT,
	run_id     INTEGER,
	error      TEXT NOT NULL,
	PRIMARY KEY (session_id, seq)
);
CREATE TABLE coord_parts (
	session_id INTEGER NOT NULL REFERENCES coord_sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	generator  INTEGER NOT NULL,
	status     TEXT NOT NULL,
	run        TEXT,
	error      TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (session_id, seq, generator)
);
`,
	// 7: the clients level a run's client count came from ("50%" of the
	// target's hardware threads; '' for a literal count), so that targets
	// with different cores pair at the same share of their threads.
	`
ALTER TABLE runs ADD COLUMN client_level TEXT NOT NULL DEFAULT '';
`,
	// 8: the interval histograms of a run still measuring, spilled as its
	// seconds complete so that its memory stays flat (spill.go): per point
	// of its series, the histograms of its op types in order (JSON of
	// []string). Appending the run moves them into run_series.hists and
	// deletes them here.
	`
CREATE TABLE spilled_intervals (
	spill_key  TEXT NOT NULL,
	point      INTEGER NOT NULL,
	histograms TEXT NOT NULL,
	PRIMARY KEY (spill_key, point)
);
`,
	// 9: the whole points of a run still measuring, not only their
	// histograms, so that its memory stays flat with its counts too
	// (spill.go): per point, its run_series row as it will be stored.
	// Appending the run copies them into run_series and deletes them here.
	// spill_owners names the process spilling under each key and when it
	// last wrote, so that the points of a killed run can be told from those
	// of a run still measuring (RemoveOrphanedSpill).
	`
DROP TABLE spilled_intervals;
CREATE TABLE spilled_points (
	spill_key        TEXT NOT NULL,
	point            INTEGER NOT NULL,
	second           INTEGER NOT NULL,
	ops              INTEGER NOT NULL,
	errors           INTEGER NOT NULL,
	rate             REAL NOT NULL,
	mean_us          REAL NOT NULL,
	p50_us           REAL NOT NULL,
	p95_us           REAL NOT NULL,
	p99_us           REAL NOT NULL,
	max_us           REAL NOT NULL,
	client_cpu       REAL NOT NULL,
	server_cpu       REAL,
	server_disk_util REAL,
	server_net_rx    REAL,
	server_net_tx    REAL,
	hists            TEXT,
	PRIMARY KEY (spill_key, point)
);
CREATE TABLE spill_owners (
	spill_key TEXT PRIMARY KEY,
	host      TEXT NOT NULL,
	pid       INTEGER NOT NULL,
	seen_at   TEXT NOT NULL
);
`,
	// 10: the commands the study ran around each run (its hooks, the
	// target's restart and cache drops before cold tries), as JSON of
	// []result.HookRecord; NULL for runs without any.
	`
ALTER TABLE runs ADD COLUMN hooks TEXT;
`,
	// 11: the server's own view of a run (result.ServerView as JSON; NULL
	// when its driver has none or the study turned it off).
	`
ALTER TABLE runs ADD COLUMN server_view TEXT;
`,
	// 12: a load generator's latest progress readings of the cell it is
	// measuring (JSON of []PartTick, the last few only), for the
	// coordinator's per-second totals and live page; cleared when the part
	// is done.
	`
ALTER TABLE coord_parts ADD COLUMN progress TEXT;
`,
}

// schemaVersion is the schema version this binary writes.
func schemaVersion() int { return len(migrations) }

// timeLayout is RFC 3339 in UTC with a fixed nine-digit fraction, so that the
// text sorts in time order (time.RFC3339Nano trims zeros and would not) and
// stays readable in the sqlite3 shell.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Store is an open results file. It is safe for concurrent use, and several
// processes may append to the same file: SQLite's WAL journal and the busy
// timeout serialise their writes.
type Store struct {
	db   *sql.DB
	path string    // as given for a file; a URL with its password redacted
	kind string    // "results file" or "results store", for messages
	pg   *pgStore  // nil: SQLite
	warn io.Writer // where Runs says which unreadable runs it skipped

	spill spillBuffer // interval histograms not yet written (spill.go)

	onClose func() error // after the database closes: OpenTemp removes its file
}

// setWarnings sets where Runs reports the runs it skips because their rows do
// not decode (default: standard error); nil discards the warnings.
func (s *Store) setWarnings(w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	s.warn = w
}

// Open opens the results file at path, creating it if needed, and migrates it
// to the current schema.
func Open(path string) (*Store, error) { return open(path, false) }

// OpenExisting opens a results store to read from: a file that does not
// exist, or a PostgreSQL schema without a store, is an error rather than
// created empty.
func OpenExisting(path string) (*Store, error) { return open(path, true) }

func open(path string, mustExist bool) (*Store, error) {
	if IsURL(path) {
		if isPostgresURL(path) {
			return openPostgres(path, mustExist)
		}
		// A URL is not a file name: SQLite would create a file of that name
		// and its error would print the URL's password.
		return nil, fmt.Errorf("results %s: a results store at this kind of URL is not supported; give a file path or a postgres:// URL", driver.Redacted(path))
	}
	if mustExist {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("no results file %s: run a study first (fairbench demo, fairbench run) or pass --results FILE", path)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("results file %s: %w", path, err)
	}
	// A file: URI keeps a '?' or '#' in the path from being read as DSN syntax.
	// The pragmas here run on every pooled connection and change nothing in the
	// file, so they are safe before we know whose file it is. synchronous=FULL
	// makes a commit survive power loss, not only a killed process; one fsync
	// per finished run costs nothing next to a run. Write transactions begin
	// IMMEDIATE so a writer waits for the lock under busy_timeout instead of
	// failing when it upgrades from a read.
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("results file %s: %w", path, err)
	}
	s := &Store{db: db, path: path, kind: "results file", warn: os.Stderr}
	if err := s.init(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// IsURL reports whether a --results argument is a URL rather than a file path.
func IsURL(path string) bool {
	scheme, _, ok := strings.Cut(path, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, "/\\")
}

// Close closes the file (and removes it when OpenTemp made it).
func (s *Store) Close() error {
	s.spill.writing.Lock() // a batch of spilled histograms being written ends first
	defer s.spill.writing.Unlock()
	err := s.db.Close()
	if s.onClose != nil {
		err = errors.Join(err, s.onClose())
		s.onClose = nil
	}
	return err
}

// Path returns the path the store was opened with; a URL's password is redacted.
func (s *Store) Path() string { return s.path }

// q returns a statement written with ? placeholders in the store's dialect.
func (s *Store) q(query string) string {
	if s.pg != nil {
		return rebind(query)
	}
	return query
}

func (s *Store) init() error {
	ctx := context.Background()
	if s.pg != nil {
		return s.pgInit(ctx)
	}
	// Identify the file before writing anything: switching to WAL alone would
	// rewrite the header of someone else's database.
	if _, err := s.version(ctx, s.db); err != nil {
		return err
	}
	if err := s.useWAL(ctx); err != nil {
		return err
	}
	return s.migrate(ctx)
}

// useWAL switches the file to write-ahead logging, which lets readers and one
// writer proceed together and keeps every commit in the log until checkpoint.
// The switch needs the file to itself and SQLite does not wait for that under
// busy_timeout, so when several processes open a new file at the same moment
// the losers retry for as long as busy_timeout would have waited.
func (s *Store) useWAL(ctx context.Context) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var mode string
		err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil {
			if !strings.EqualFold(mode, "wal") {
				return fmt.Errorf("results file %s: SQLite kept journal mode %q instead of WAL", s.path, mode)
			}
			return nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			return fmt.Errorf("results file %s: setting WAL journal: %w", s.path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// version returns the schema version of the file: 0 for an empty database,
// an error for a file that is not ours or is newer than this binary.
func (s *Store) version(ctx context.Context, q querier) (int, error) {
	if s.pg != nil {
		return s.pgVersion(ctx, q)
	}
	var tables int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables)
	if err != nil {
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
			return 0, fmt.Errorf("%s is not a fairbench results file (not an SQLite database)", s.path)
		}
		return 0, fmt.Errorf("results file %s: %w", s.path, err)
	}
	if tables == 0 {
		return 0, nil
	}
	notOurs := fmt.Errorf("%s is not a fairbench results file", s.path)
	var hasMeta int
	err = q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'").Scan(&hasMeta)
	if err != nil {
		return 0, fmt.Errorf("results file %s: %w", s.path, err)
	}
	if hasMeta == 0 {
		return 0, notOurs
	}
	return s.metaVersion(ctx, q, notOurs)
}

// metaVersion reads the meta table both dialects share.
func (s *Store) metaVersion(ctx context.Context, q querier, notOurs error) (int, error) {
	var app, ver string
	err := q.QueryRowContext(ctx, "SELECT (SELECT value FROM meta WHERE key = 'application'), (SELECT value FROM meta WHERE key = 'schema_version')").Scan(&app, &ver)
	if err != nil || app != application {
		// A meta table without our rows (or with columns we did not create) belongs to someone else.
		return 0, notOurs
	}
	v, err := strconv.Atoi(ver)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%s %s: unreadable schema version %q", s.kind, s.path, ver)
	}
	if v > len(migrations) {
		return 0, fmt.Errorf("%s %s has schema version %d, newer than this fairbench knows (%d); use a newer fairbench to read it", s.kind, s.path, v, len(migrations))
	}
	return v, nil
}

// migrate applies the missing migrations, each in its own transaction together
// with the version bump, so a crash leaves the file at a version it really has.
// The version is read again inside the transaction because another process may
// have migrated the file in the meantime.
func (s *Store) migrate(ctx context.Context) error {
	for {
		done, err := s.migrateOne(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

func (s *Store) migrateOne(ctx context.Context) (done bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("%s %s: %w", s.kind, s.path, err)
	}
	defer tx.Rollback()
	if s.pg != nil {
		// Serialise migrations between processes and create the schema.
		if err := s.pgLock(ctx, tx); err != nil {
			return false, err
		}
	}
	v, err := s.version(ctx, tx)
	if err != nil {
		return false, err
	}
	if v == len(migrations) {
		return true, nil
	}
	if _, err := tx.ExecContext(ctx, s.ddl(migrations[v])); err != nil {
		return false, fmt.Errorf("%s %s: migrating to schema version %d: %w", s.kind, s.path, v+1, err)
	}
	if v == 0 {
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO meta (key, value) VALUES ('application', ?)"), application); err != nil {
			return false, fmt.Errorf("%s %s: %w", s.kind, s.path, err)
		}
	}
	_, err = tx.ExecContext(ctx, s.q("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"), strconv.Itoa(v+1))
	if err != nil {
		return false, fmt.Errorf("%s %s: %w", s.kind, s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("%s %s: migrating to schema version %d: %w", s.kind, s.path, v+1, err)
	}
	return false, nil
}

// SaveStudy keeps the study file a run was made from. The content hash is the
// identity, so saving the same file again is a no-op.
func (s *Store) SaveStudy(hash, name, file string, content []byte) error {
	if content == nil {
		content = []byte{}
	}
	_, err := s.db.Exec(s.q("INSERT INTO studies (hash, name, file, content, saved_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING"),
		hash, name, file, content, formatTime(time.Now()))
	if err != nil {
		return fmt.Errorf("saving study %s: %w", name, err)
	}
	return nil
}

// AppendRun writes one run with its operations and series in a single
// transaction and sets r.ID. It is called as each run ends, and the run is on
// disk when it returns: a crash later in the study loses nothing already measured.
func (s *Store) AppendRun(r *result.Run) (int64, error) {
	if err := s.AppendRuns([]*result.Run{r}, nil); err != nil {
		return 0, err
	}
	return r.ID, nil
}

// ImportedFile is a file import stored, identified by its content hash.
type ImportedFile struct {
	Hash       string // hex SHA-256 of the file's content
	Name       string
	StudyName  string
	Target     string
	Runs       int
	ImportedAt time.Time
}

// AppendRuns writes runs in a single transaction, all or none, and sets
// their IDs. With file set, the file is recorded as imported in the same
// transaction: a process killed during the import leaves neither runs nor
// the record behind.
func (s *Store) AppendRuns(runs []*result.Run, file *ImportedFile) error {
	return s.appendRuns(runs, file, false)
}

// appendRuns is AppendRuns; with keepIDs each run is stored under the id it
// carries (RestoreRuns) instead of the next one.
func (s *Store) appendRuns(runs []*result.Run, file *ImportedFile, keepIDs bool) error {
	for _, r := range runs {
		if r.SpillKey != "" {
			if err := s.flushSpill(); err != nil {
				return err
			}
			break
		}
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("appending runs: %w", err)
	}
	defer tx.Rollback()
	ids := make([]int64, len(runs))
	for i, r := range runs {
		if ids[i], err = s.appendRun(tx, r, keepIDs); err != nil {
			return err
		}
	}
	if file != nil {
		if file.ImportedAt.IsZero() {
			file.ImportedAt = time.Now()
		}
		_, err := tx.Exec(s.q("INSERT INTO imported_files (hash, name, study_name, target, runs, imported_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO UPDATE SET name = excluded.name, study_name = excluded.study_name, target = excluded.target, runs = excluded.runs, imported_at = excluded.imported_at"),
			file.Hash, file.Name, file.StudyName, file.Target, file.Runs, formatTime(file.ImportedAt))
		if err != nil {
			return fmt.Errorf("recording imported file %s: %w", file.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("appending runs: %w", err)
	}
	for i, r := range runs {
		r.ID = ids[i]
	}
	return nil
}

// Imported returns the record of the file whose content has hash, if an
// import stored it.
func (s *Store) Imported(hash string) (*ImportedFile, bool, error) {
	return s.importedFile("hash = ?", hash)
}

// ImportedAs returns the record of the file last imported under name (the
// path import was given), if any.
func (s *Store) ImportedAs(name string) (*ImportedFile, bool, error) {
	return s.importedFile("name = ? ORDER BY imported_at DESC LIMIT 1", name)
}

func (s *Store) importedFile(cond string, arg any) (*ImportedFile, bool, error) {
	f := &ImportedFile{}
	var at sql.NullString
	err := s.db.QueryRow(s.q("SELECT hash, name, study_name, target, runs, imported_at FROM imported_files WHERE "+cond), arg).
		Scan(&f.Hash, &f.Name, &f.StudyName, &f.Target, &f.Runs, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s %s: imported files: %w", s.kind, s.path, err)
	}
	if f.ImportedAt, err = parseTime(at); err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// maxErrorText bounds the error text stored with a run: a failure of many
// clients at once can join thousands of messages (22 MB for 100 000 clients
// refused), which no reader wants and every report would load.
const maxErrorText = 8 << 10

// capError keeps the first maxErrorText bytes of an error text (cut at a
// character boundary) and says how much was left out.
func capError(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes of error text not stored)", len(s)-cut)
}

// errorText is an error message as the store keeps it: capped, and
// storable in the dialect's text column.
func (s *Store) errorText(t string) string {
	t = capError(t)
	if s.pg != nil {
		t = pgText(t)
	}
	return t
}

// appendRun writes one run with its operations and series inside tx, under
// the id it carries with keepID, else the next one.
func (s *Store) appendRun(tx *sql.Tx, r *result.Run, keepID bool) (int64, error) {
	enc := func(what string, v any) (string, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("run %s/%s: encoding %s: %w", r.Target, r.CellKey, what, err)
		}
		return string(b), nil
	}
	// JSON has no NaN or infinity; a run must not be lost because a number in it
	// is undefined (a minimum over zero operations is +Inf), so those become 0
	// and null.
	var pv map[string]any
	if r.Params != nil {
		// Durations become strings; the runner already does this, importers may not.
		pv = params.Values(r.Params).JSONable()
	}
	p, err := enc("params", finiteValues(pv))
	if err != nil {
		return 0, err
	}
	env, err := enc("environment", r.Env)
	if err != nil {
		return 0, err
	}
	dev, err := enc("deviations", r.Deviations)
	if err != nil {
		return 0, err
	}
	sum, err := enc("summary", finiteSummary(r.Summary))
	if err != nil {
		return 0, err
	}
	var view sql.NullString
	if r.ServerView != nil {
		if view.String, err = enc("server view", finiteView(r.ServerView)); err != nil {
			return 0, err
		}
		view.Valid = true
	}
	opErrs := make([]string, len(r.Ops))
	for i, op := range r.Ops {
		if opErrs[i], err = enc("errors of "+op.Name, op.Errors); err != nil {
			return 0, err
		}
	}

	var hooks sql.NullString
	if len(r.Hooks) > 0 {
		if hooks.String, err = enc("hooks", r.Hooks); err != nil {
			return 0, err
		}
		hooks.Valid = true
	}

	errText := s.errorText(r.Error)
	var id int64
	cols, marks := "", ""
	args := []any{r.Source, r.StudyName, r.StudyHash, r.CellKey, r.CellIndex, r.Target, r.TargetURL,
		r.Workload, r.Kind, p, r.Clients, r.ClientLevel, r.Repetition, string(r.Status), errText,
		nullTime(r.StartedAt), nullTime(r.EndedAt), int64(r.Warmup), int64(r.Duration),
		r.ToolVersion, env, dev, sum, hooks, view}
	if keepID {
		cols, marks, args = "id, ", "?, ", append([]any{r.ID}, args...)
	}
	err = tx.QueryRow(s.q(`INSERT INTO runs (`+cols+`source, study_name, study_hash, cell_key, cell_index, target, target_url,
		workload, kind, params, clients, client_level, repetition, status, error, started_at, ended_at, warmup_ns, duration_ns,
		tool_version, env, deviations, summary, hooks, server_view) VALUES (`+marks+`?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		args...).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("appending run: %w", err)
	}
	for i, op := range r.Ops {
		_, err := tx.Exec(s.q("INSERT INTO run_ops (run_id, position, name, count, items, bytes, errors, histogram, service_histogram) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
			id, i, op.Name, op.Count, op.Items, op.Bytes, opErrs[i], op.Histogram, nullBytes(op.ServiceHistogram))
		if err != nil {
			return 0, fmt.Errorf("appending run: operation %s: %w", op.Name, err)
		}
	}
	if r.SpillKey != "" {
		// The points spilled while the run measured come first, copied row
		// for row: they never pass through this process's memory again.
		res, err := tx.Exec(s.q(`INSERT INTO run_series (run_id, `+seriesColumns+`)
			SELECT ?, `+seriesColumns+` FROM spilled_points WHERE spill_key = ? ORDER BY point`), id, r.SpillKey)
		if err != nil {
			return 0, fmt.Errorf("appending run: spilled series points: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n != int64(r.Spilled.Points) {
			return 0, fmt.Errorf("appending run: %d of its %d spilled series points are in %s %s", n, r.Spilled.Points, s.kind, s.path)
		}
		if err := s.dropSpill(tx, r.SpillKey); err != nil {
			return 0, fmt.Errorf("appending run: %w", err)
		}
	}
	if len(r.Series) > 0 {
		st, err := tx.Prepare(s.q(`INSERT INTO run_series (run_id, ` + seriesColumns + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`))
		if err != nil {
			return 0, fmt.Errorf("appending run: series: %w", err)
		}
		defer st.Close()
		for _, pt := range r.Series {
			row, err := seriesRow(pt)
			if err != nil {
				return 0, fmt.Errorf("appending run: %w", err)
			}
			if _, err := st.Exec(append([]any{id}, row...)...); err != nil {
				return 0, fmt.Errorf("appending run: series: %w", err)
			}
		}
	}
	return id, nil
}

// Filter selects runs. Zero fields select everything.
type Filter struct {
	StudyName string
	StudyHash string
	Targets   []string
	Status    []result.Status
	IDs       []int64
	Sources   []string // "fairbench", or the tools imported runs came from
	// LatestStudy keeps only the runs of one study name: the one of the most
	// recently appended run among those the other fields select. Appending order
	// is used rather than start times because clocks can step; a resumed study
	// therefore counts as the latest again.
	LatestStudy bool
}

// where returns the SQL condition (on table alias r) and its arguments.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.StudyName != "" {
		conds = append(conds, "r.study_name = ?")
		args = append(args, f.StudyName)
	}
	if f.StudyHash != "" {
		conds = append(conds, "r.study_hash = ?")
		args = append(args, f.StudyHash)
	}
	in := func(col string, n int) string {
		return col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	}
	if len(f.Targets) > 0 {
		conds = append(conds, in("r.target", len(f.Targets)))
		for _, t := range f.Targets {
			args = append(args, t)
		}
	}
	if len(f.Status) > 0 {
		conds = append(conds, in("r.status", len(f.Status)))
		for _, st := range f.Status {
			args = append(args, string(st))
		}
	}
	if len(f.IDs) > 0 {
		conds = append(conds, in("r.id", len(f.IDs)))
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if len(f.Sources) > 0 {
		conds = append(conds, in("r.source", len(f.Sources)))
		for _, src := range f.Sources {
			args = append(args, src)
		}
	}
	base := "1 = 1"
	if len(conds) > 0 {
		base = strings.Join(conds, " AND ")
	}
	if !f.LatestStudy {
		return base, args
	}
	latest := "r.study_name = (SELECT r.study_name FROM runs r WHERE " + base + " ORDER BY r.id DESC LIMIT 1)"
	return base + " AND " + latest, append(append([]any{}, args...), args...)
}

// Runs returns the selected runs, fully loaded, in id order.
func (s *Store) Runs(f Filter) ([]*result.Run, error) { return s.runs(f, true) }

// RunsWithoutIntervals returns the selected runs as Runs does, except that
// their series points keep, per op type, the counts, errors and latency sum
// of the interval but not its histogram (IntervalOp.Histogram is empty).
// Those histograms are nearly all of a results file (about 1.4 KiB per op
// type per second) and only merging series and a level shift's latencies
// read them: reports read the runs this way, so that their memory grows
// with the number of runs rather than with the seconds measured.
func (s *Store) RunsWithoutIntervals(f Filter) ([]*result.Run, error) { return s.runs(f, false) }

// intervalCounts is result.IntervalOp without its histogram: decoding a
// point's interval into it skips the histogram's text.
type intervalCounts struct {
	Name   string                      `json:"name"`
	Count  int64                       `json:"count"`
	Items  int64                       `json:"items,omitempty"`
	Bytes  int64                       `json:"bytes,omitempty"`
	Errors map[result.ErrorClass]int64 `json:"errors,omitempty"`
	SumUs  float64                     `json:"sum_us,omitempty"`
}

// decodeIntervals decodes a point's interval column, with or without the
// histograms.
func decodeIntervals(text []byte, histograms bool) ([]result.IntervalOp, error) {
	var out []result.IntervalOp
	if histograms {
		if err := json.Unmarshal(text, &out); err != nil {
			return nil, err
		}
	} else {
		var counts []intervalCounts
		if err := json.Unmarshal(text, &counts); err != nil {
			return nil, err
		}
		out = make([]result.IntervalOp, len(counts))
		for i, c := range counts {
			out[i] = result.IntervalOp{Name: c.Name, Count: c.Count, Items: c.Items, Bytes: c.Bytes, Errors: c.Errors, SumUs: c.SumUs}
		}
	}
	if out == nil {
		out = []result.IntervalOp{}
	}
	return out, nil
}

func (s *Store) runs(f Filter, intervalHistograms bool) ([]*result.Run, error) {
	var runs []*result.Run
	err := s.eachRun(f, intervalHistograms, func(r *result.Run) error {
		runs = append(runs, r)
		return nil
	})
	return runs, err
}

// eachRun calls fn with each selected run in id order, as Runs would
// return it (RunsWithoutIntervals' points without intervalHistograms),
// reading one run's series at a time. A run that does not decode is skipped
// with a warning, as Runs does; an error fn returns stops the walk and is
// returned.
func (s *Store) eachRun(f Filter, intervalHistograms bool, fn func(*result.Run) error) error {
	collect := func(r *result.Run) func(result.SeriesPoint) {
		return func(p result.SeriesPoint) { r.Series = append(r.Series, p) }
	}
	return s.EachRunPoints(f, intervalHistograms, collect, fn)
}

// EachRunPoints walks the selected runs as eachRun does, except that no
// run's series is ever built: the points of a run go one at a time, as they
// are read, to the sink start returns for it, and then the run (its Series
// nil) to done. The runs go strictly one after another, in id order: start
// (once its operations are read), its points, done, then the next run's
// start. A run found not to decode after start was called for it is
// skipped with a warning and never goes to done. A report keeps of
// each point only what its digest needs (report.Digester): one very long
// run costs a few columns of its series, not the series.
func (s *Store) EachRunPoints(f Filter, intervalHistograms bool, start func(*result.Run) func(result.SeriesPoint), done func(*result.Run) error) error {
	ctx := context.Background()
	// One read transaction: a WAL snapshot, so a run appended by another
	// process while we read never shows up without its operations.
	// PostgreSQL: REPEATABLE READ gives every statement the same snapshot.
	opts := &sql.TxOptions{ReadOnly: true}
	if s.pg != nil {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("reading runs: %w", err)
	}
	defer tx.Rollback()
	where, args := f.where()
	where = s.q(where)

	runs, byID, err := s.readRuns(ctx, tx, where, args)
	if err != nil || len(runs) == 0 {
		return err
	}
	sub := "SELECT r.id FROM runs r WHERE " + where
	// One corrupt row must not hide every other run: a run whose row, ops or
	// series do not decode is skipped with a warning naming it.
	bad := map[int64]string{}
	if err := readOps(ctx, tx, sub, args, byID, bad); err != nil {
		return err
	}

	rows, err := tx.QueryContext(ctx, `SELECT run_id, `+seriesColumns+`
		FROM run_series WHERE run_id IN (`+sub+`) ORDER BY run_id, second, `+s.rowOrder(), args...)
	if err != nil {
		return fmt.Errorf("reading series: %w", err)
	}
	defer rows.Close()
	// The series rows come in run id order, as the runs do: each run gets
	// its points, then goes to done before the next run's are read.
	next := 0
	// sink takes the points of the run being read (of id sinkOf).
	var sink func(result.SeriesPoint)
	sinkOf := int64(-1)
	// deliver hands done the runs before the one of id (all, at -1).
	deliver := func(id int64) error {
		for ; next < len(runs) && (id < 0 || runs[next].ID < id); next++ {
			r := runs[next]
			runs[next] = nil // the walk keeps no run it handed over
			delete(byID, r.ID)
			if why, ok := bad[r.ID]; ok {
				s.skipped(runName(r), errors.New(why))
				continue
			}
			if sinkOf != r.ID {
				start(r) // a run without points
			}
			sink = nil // nor the sink of a run it handed over
			if err := done(r); err != nil {
				return err
			}
		}
		return nil
	}
	for rows.Next() {
		var id int64
		p, err := scanPoint(rows, intervalHistograms, &id)
		var undecodable *badPointError
		if errors.As(err, &undecodable) {
			if _, ok := bad[id]; !ok {
				bad[id] = err.Error()
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("reading series: %w", err)
		}
		if err := deliver(id); err != nil {
			return err
		}
		if r := byID[id]; r != nil && bad[id] == "" {
			if sinkOf != id {
				sink, sinkOf = start(r), id
			}
			sink(p)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading series: %w", err)
	}
	return deliver(-1)
}

// readRuns reads the rows of the runs that where selects, in id order,
// skipping with a warning a row that does not decode.
func (s *Store) readRuns(ctx context.Context, tx *sql.Tx, where string, args []any) ([]*result.Run, map[int64]*result.Run, error) {
	rows, err := tx.QueryContext(ctx, s.q(`SELECT r.id, r.source, r.study_name, r.study_hash, r.cell_key, r.cell_index,
		r.target, r.target_url, r.workload, r.kind, r.params, r.clients, r.client_level, r.repetition, r.status, r.error,
		r.started_at, r.ended_at, r.warmup_ns, r.duration_ns, r.tool_version, r.env, r.deviations, r.summary, r.hooks, r.server_view
		FROM runs r WHERE `)+where+` ORDER BY r.id`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("reading runs: %w", err)
	}
	var runs []*result.Run
	byID := map[int64]*result.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			var br *badRunError
			if !errors.As(err, &br) {
				rows.Close()
				return nil, nil, err
			}
			s.skipped(br.label, br.err)
			continue
		}
		runs = append(runs, r)
		byID[r.ID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading runs: %w", err)
	}
	rows.Close()
	return runs, byID, nil
}

// readOps reads the operations of the runs that sub selects into byID's
// runs; bad gets, for a run with an operation that does not decode, why.
func readOps(ctx context.Context, tx *sql.Tx, sub string, args []any, byID map[int64]*result.Run, bad map[int64]string) error {
	rows, err := tx.QueryContext(ctx, "SELECT run_id, name, count, items, bytes, errors, histogram, service_histogram FROM run_ops WHERE run_id IN ("+sub+") ORDER BY run_id, position", args...)
	if err != nil {
		return fmt.Errorf("reading operations: %w", err)
	}
	for rows.Next() {
		var id int64
		var op result.Op
		var count, items, bytes, errs, h, sh any
		if err := rows.Scan(&id, &op.Name, &count, &items, &bytes, &errs, &h, &sh); err != nil {
			rows.Close()
			return fmt.Errorf("reading operations: %w", err)
		}
		var err error
		if op.Count, err = asInt(count); err == nil {
			if op.Items, err = asInt(items); err == nil {
				op.Bytes, err = asInt(bytes)
			}
		}
		if err == nil {
			err = json.Unmarshal(asBytes(errs), &op.Errors)
		}
		op.Histogram = asBytes(h)
		if sh != nil {
			op.ServiceHistogram = asBytes(sh)
		}
		if err != nil {
			if _, ok := bad[id]; !ok {
				bad[id] = fmt.Sprintf("operation %s: %v", op.Name, err)
			}
			continue
		}
		if r := byID[id]; r != nil {
			r.Ops = append(r.Ops, op)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading operations: %w", err)
	}
	rows.Close()
	return nil
}

// skipped warns that a run is left out because its rows do not decode.
func (s *Store) skipped(label string, err error) {
	fmt.Fprintf(s.warn, "warning: %s %s: %s skipped, its stored data does not decode: %v\n", s.kind, s.path, label, err)
}

// badRunError is a run row that does not decode; label names the run.
type badRunError struct {
	label string
	err   error
}

func (e *badRunError) Error() string { return e.label + ": " + e.err.Error() }

// runName names a run in warnings: its id, target, workload and clients.
func runName(r *result.Run) string {
	if r.Clients == 0 {
		return fmt.Sprintf("run %d (target %s, workload %s)", r.ID, r.Target, r.Workload)
	}
	return fmt.Sprintf("run %d (target %s, workload %s, clients %d)", r.ID, r.Target, r.Workload, r.Clients)
}

// asInt reads an integer column whatever SQLite stored in it.
func asInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case nil:
		return 0, nil
	case float64:
		if x == math.Trunc(x) {
			return int64(x), nil
		}
	case string:
		return strconv.ParseInt(x, 10, 64)
	case []byte:
		return strconv.ParseInt(string(x), 10, 64)
	}
	return 0, fmt.Errorf("not an integer: %v", v)
}

// asBytes reads a text or blob column.
func asBytes(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	case nil:
		return nil
	}
	return []byte(fmt.Sprint(v))
}

func scanRun(rows *sql.Rows) (*result.Run, error) {
	var r result.Run
	var id, cellIndex, clients, rep, warmup, duration any
	var source, studyName, studyHash, cellKey, target, targetURL, wl, kind, p, level, status, errText sql.NullString
	var started, ended, toolVersion, env, dev, sum, hooks, view sql.NullString
	err := rows.Scan(&id, &source, &studyName, &studyHash, &cellKey, &cellIndex,
		&target, &targetURL, &wl, &kind, &p, &clients, &level, &rep, &status, &errText,
		&started, &ended, &warmup, &duration, &toolVersion, &env, &dev, &sum, &hooks, &view)
	if err != nil {
		return nil, fmt.Errorf("reading runs: %w", err)
	}
	r.ID, err = asInt(id)
	if err != nil {
		return nil, &badRunError{label: fmt.Sprintf("a run with id %v", id), err: err}
	}
	r.Source, r.StudyName, r.StudyHash, r.CellKey = source.String, studyName.String, studyHash.String, cellKey.String
	r.Target, r.TargetURL, r.Workload, r.Kind = target.String, targetURL.String, wl.String, kind.String
	r.Status, r.Error, r.ToolVersion = result.Status(status.String), errText.String, toolVersion.String
	r.ClientLevel = level.String
	bad := func(what string, err error) (*result.Run, error) {
		return nil, &badRunError{label: runName(&r), err: fmt.Errorf("%s: %w", what, err)}
	}
	ints := []struct {
		name string
		v    any
		to   func(int64)
	}{
		{"cell_index", cellIndex, func(n int64) { r.CellIndex = int(n) }},
		{"clients", clients, func(n int64) { r.Clients = int(n) }},
		{"repetition", rep, func(n int64) { r.Repetition = int(n) }},
		{"warmup_ns", warmup, func(n int64) { r.Warmup = time.Duration(n) }},
		{"duration_ns", duration, func(n int64) { r.Duration = time.Duration(n) }},
	}
	for _, f := range ints {
		n, err := asInt(f.v)
		if err != nil {
			return bad(f.name, err)
		}
		f.to(n)
	}
	if r.StartedAt, err = parseTime(started); err != nil {
		return bad("started_at", err)
	}
	if r.EndedAt, err = parseTime(ended); err != nil {
		return bad("ended_at", err)
	}
	if r.Params, err = decodeMap(p.String); err != nil {
		return bad("params", err)
	}
	if env.String != "" && env.String != "null" {
		if err := json.Unmarshal([]byte(env.String), &r.Env); err != nil {
			return bad("environment", err)
		}
	}
	if err := json.Unmarshal([]byte(dev.String), &r.Deviations); err != nil {
		return bad("deviations", err)
	}
	if err := json.Unmarshal([]byte(sum.String), &r.Summary); err != nil {
		return bad("summary", err)
	}
	if hooks.Valid && hooks.String != "" {
		if err := json.Unmarshal([]byte(hooks.String), &r.Hooks); err != nil {
			return bad("hooks", err)
		}
	}
	if view.Valid && view.String != "" && view.String != "null" {
		r.ServerView = &result.ServerView{}
		if err := json.Unmarshal([]byte(view.String), r.ServerView); err != nil {
			return bad("server view", err)
		}
	}
	return &r, nil
}

// CompletedCells returns the cell keys of the study's runs that completed, the
// cells --resume skips.
func (s *Store) CompletedCells(studyHash string) (map[string]bool, error) {
	rows, err := s.db.Query(s.q("SELECT DISTINCT cell_key FROM runs WHERE study_hash = ? AND status = ?"), studyHash, string(result.StatusOK))
	if err != nil {
		return nil, fmt.Errorf("reading completed cells: %w", err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("reading completed cells: %w", err)
		}
		done[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading completed cells: %w", err)
	}
	return done, nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}

func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s.String)
}

// decodeMap reads a JSON object written by AppendRun. Numbers come back as
// int64 when they are integral (JSON cannot tell 10 from 10.0, and params.Format
// must print a scale as "10"), otherwise as float64.
func decodeMap(s string) (map[string]any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, nil
	}
	return result.WholeNumbers(m).(map[string]any), nil
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func finiteSummary(s result.Summary) result.Summary {
	for _, f := range []*float64{&s.Throughput, &s.LatencyMean, &s.LatencyStddev, &s.LatencyMin,
		&s.P50, &s.P95, &s.P99, &s.Max, &s.LagMean, &s.LagMax, &s.ConnectTimeMean, &s.TargetRate, &s.ClientCPU} {
		*f = finite(*f)
	}
	return s
}

// finitePoint is pt with non-finite numbers replaced by 0, for JSON.
func finitePoint(pt result.SeriesPoint) result.SeriesPoint {
	for _, f := range []*float64{&pt.Rate, &pt.Mean, &pt.P50, &pt.P95, &pt.P99, &pt.Max, &pt.CPU, &pt.CPUWait} {
		*f = finite(*f)
	}
	if sv := pt.Server; sv != nil {
		pt.Server = &result.ServerSample{CPU: finite(sv.CPU), DiskUtil: finite(sv.DiskUtil), NetRx: finite(sv.NetRx), NetTx: finite(sv.NetTx)}
	}
	if pt.Hists != nil {
		pt.Hists = slices.Clone(pt.Hists)
		for i := range pt.Hists {
			pt.Hists[i].SumUs = finite(pt.Hists[i].SumUs)
		}
	}
	return pt
}

// finiteView copies v with non-finite numbers replaced by 0 (the runner
// keeps none, but an importer may).
func finiteView(v *result.ServerView) *result.ServerView {
	c := *v
	c.Seconds = finite(c.Seconds)
	c.Counters = slices.Clone(c.Counters)
	for i := range c.Counters {
		c.Counters[i].Delta, c.Counters[i].PerSecond = finite(c.Counters[i].Delta), finite(c.Counters[i].PerSecond)
	}
	c.Gauges = slices.Clone(c.Gauges)
	for i := range c.Gauges {
		c.Gauges[i].Mean, c.Gauges[i].Max = finite(c.Gauges[i].Mean), finite(c.Gauges[i].Max)
	}
	return &c
}

// finiteValues copies m with non-finite floats replaced by nil.
func finiteValues(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return result.Finite(m).(map[string]any)
}

// nullBytes stores an empty byte slice as NULL.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
