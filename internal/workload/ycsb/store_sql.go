package ycsb

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// sqlLayout is YCSB's JDBC binding's table: YCSB_KEY VARCHAR(255) PRIMARY
// KEY and one TEXT column per field, named as the field.
type sqlLayout struct {
	in      *instance
	c       driver.SQL
	table   string
	dataset string
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

func newSQLLayout(in *instance, c driver.SQL) (*sqlLayout, error) {
	if !identifier.MatchString(in.cfg.Table) {
		return nil, fmt.Errorf("ycsb: table %q is not a plain SQL name (letters, digits, _)", in.cfg.Table)
	}
	if !identifier.MatchString(in.cfg.FieldNamePrefix + "0") {
		return nil, fmt.Errorf("ycsb: fieldnameprefix %q does not make plain SQL column names", in.cfg.FieldNamePrefix)
	}
	return &sqlLayout{in: in, c: c, table: in.cfg.Table, dataset: "ycsb." + in.cfg.Table}, nil
}

func (l *sqlLayout) describe() string { return "table " + l.table }

func (l *sqlLayout) deviations() []note {
	return []note{{ops: []string{ycsbparams.Update, ycsbparams.ReadModifyWrite},
		text: "an UPDATE of a missing row counts as done: the SQL session reports no affected-row count (YCSB's JDBC binding answers UNEXPECTED_STATE)"}}
}

func (l *sqlLayout) state(ctx context.Context, params string) (dataState, error) {
	st := dataState{holds: "a table " + l.table}
	var err error
	if st.found, err = sqlwork.TableExists(ctx, l.c, l.table); err != nil || !st.found {
		return st, err
	}
	if st.ours, err = sqlwork.Owns(ctx, l.c, l.dataset, []string{l.table}); err != nil || !st.ours {
		return st, err
	}
	st.matches, err = sqlwork.MarkerMatches(ctx, l.c, l.dataset, params)
	return st, err
}

func (l *sqlLayout) createSQL() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + l.table + " (ycsb_key VARCHAR(255) PRIMARY KEY")
	for _, f := range l.in.fields {
		b.WriteString(", " + f + " TEXT")
	}
	b.WriteString(")")
	return b.String()
}

func (l *sqlLayout) reset(ctx context.Context, params string) error {
	if err := l.c.Exec(ctx, "DROP TABLE IF EXISTS "+l.table); err != nil {
		return err
	}
	if err := sqlwork.WriteMarker(ctx, l.c, l.dataset, params, sqlwork.Loading, nil); err != nil {
		return err
	}
	return l.c.Exec(ctx, l.createSQL())
}

func (l *sqlLayout) ready(ctx context.Context, params string) error {
	return sqlwork.WriteMarker(ctx, l.c, l.dataset, params, sqlwork.Ready, []string{l.table})
}

func (l *sqlLayout) records(ctx context.Context) (int64, bool, error) {
	n, err := l.c.QueryInt64(ctx, "SELECT count(*) FROM "+l.table)
	return n, err == nil, err
}

func (l *sqlLayout) drop(ctx context.Context) error {
	if err := l.c.Exec(ctx, "DROP TABLE IF EXISTS "+l.table); err != nil {
		return err
	}
	return sqlwork.DeleteMarker(ctx, l.c, l.dataset)
}

// sqlSession holds one worker's prepared statements, made on first use:
// reads and updates of one field have one statement per field.
type sqlSession struct {
	l        *sqlLayout
	c        driver.SQL
	bulk     driver.BulkLoader
	insert1  driver.Stmt
	readAll  driver.Stmt
	readOne  []driver.Stmt
	updAll   driver.Stmt
	updOne   []driver.Stmt
	scanAll  driver.Stmt
	scanOne  []driver.Stmt
	dest     []any
	bufs     [][]byte
	args     []any
	cols     []string
	placeAll string // "$1, $2, ..." for an insert
}

func (l *sqlLayout) session(_ context.Context, conn driver.Conn) (session, error) {
	c, ok := conn.(driver.SQL)
	if !ok {
		return nil, fmt.Errorf("ycsb: the session is not an SQL session")
	}
	n := len(l.in.fields)
	s := &sqlSession{l: l, c: c, readOne: make([]driver.Stmt, n), updOne: make([]driver.Stmt, n), scanOne: make([]driver.Stmt, n)}
	s.bulk, _ = conn.(driver.BulkLoader)
	s.bufs = make([][]byte, n+1)
	s.dest = make([]any, n+1)
	for i := range s.dest {
		s.dest[i] = &s.bufs[i]
	}
	s.args = make([]any, 0, n+1)
	s.cols = []string{"ycsb_key"}
	for _, f := range l.in.fields {
		// Unquoted names fold to lower case; COPY quotes the names it is given.
		s.cols = append(s.cols, strings.ToLower(f))
	}
	return s, nil
}

func (s *sqlSession) prep(st *driver.Stmt, sql string) (driver.Stmt, error) {
	if *st == nil {
		p, err := s.c.Prepare(context.Background(), sql)
		if err != nil {
			return nil, err
		}
		*st = p
	}
	return *st, nil
}

func placeholders(from, n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = "$" + strconv.Itoa(from+i)
	}
	return strings.Join(p, ", ")
}

// insert loads batches through the engine's bulk path (COPY, LOAD DATA) and
// inserts a run's single records with a prepared INSERT, as YCSB's binding.
func (s *sqlSession) insert(ctx context.Context, keys []string, values [][][]byte) error {
	if len(keys) > 1 && s.bulk != nil {
		_, err := s.bulk.BulkLoad(ctx, s.l.table, s.cols, &recordRows{keys: keys, values: values, row: make([]any, len(s.cols)), at: -1}, false)
		return err
	}
	st, err := s.prep(&s.insert1, "INSERT INTO "+s.l.table+" ("+strings.Join(s.cols, ", ")+") VALUES ("+placeholders(1, len(s.cols))+")")
	if err != nil {
		return err
	}
	for i, k := range keys {
		s.args = append(s.args[:0], k)
		for _, v := range values[i] {
			s.args = append(s.args, v)
		}
		if err := st.Exec(ctx, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// recordRows feeds a batch of records to a bulk load.
type recordRows struct {
	keys   []string
	values [][][]byte
	row    []any
	at     int
}

func (r *recordRows) Next() bool { r.at++; return r.at < len(r.keys) }

func (r *recordRows) Values() []any {
	r.row[0] = r.keys[r.at]
	for i, v := range r.values[r.at] {
		r.row[i+1] = string(v)
	}
	return r.row
}

func (s *sqlSession) readStmt(fields []int) (driver.Stmt, []any, error) {
	t := s.l.table
	if fields == nil || len(fields) > 1 {
		st, err := s.prep(&s.readAll, "SELECT * FROM "+t+" WHERE ycsb_key = $1")
		return st, s.dest, err
	}
	f := fields[0]
	st, err := s.prep(&s.readOne[f], "SELECT "+s.l.in.fields[f]+" FROM "+t+" WHERE ycsb_key = $1")
	return st, s.dest[:1], err
}

func (s *sqlSession) read(ctx context.Context, key string, fields []int) (bool, error) {
	st, dest, err := s.readStmt(fields)
	if err != nil {
		return false, err
	}
	rows, err := st.Query(ctx, key)
	if err != nil {
		return false, err
	}
	found := false
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return false, err
		}
		found = true
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return false, err
	}
	return found, rows.Close()
}

func (s *sqlSession) update(ctx context.Context, key string, fields []int, values [][]byte) (bool, error) {
	t := s.l.table
	var st driver.Stmt
	var err error
	if len(fields) == 1 {
		f := fields[0]
		st, err = s.prep(&s.updOne[f], "UPDATE "+t+" SET "+s.l.in.fields[f]+" = $1 WHERE ycsb_key = $2")
	} else {
		set := make([]string, len(s.l.in.fields))
		for i, f := range s.l.in.fields {
			set[i] = f + " = $" + strconv.Itoa(i+1)
		}
		st, err = s.prep(&s.updAll, "UPDATE "+t+" SET "+strings.Join(set, ", ")+" WHERE ycsb_key = $"+strconv.Itoa(len(set)+1))
	}
	if err != nil {
		return false, err
	}
	s.args = s.args[:0]
	for _, v := range values {
		s.args = append(s.args, v)
	}
	s.args = append(s.args, key)
	return true, st.Exec(ctx, s.args...)
}

func (s *sqlSession) scan(ctx context.Context, key string, n int, fields []int) (int, error) {
	t := s.l.table
	var st driver.Stmt
	var err error
	dest := s.dest
	if fields == nil || len(fields) > 1 {
		st, err = s.prep(&s.scanAll, "SELECT * FROM "+t+" WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2")
	} else {
		f := fields[0]
		st, err = s.prep(&s.scanOne[f], "SELECT "+s.l.in.fields[f]+" FROM "+t+" WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2")
		dest = s.dest[:1]
	}
	if err != nil {
		return 0, err
	}
	rows, err := st.Query(ctx, key, int64(n))
	if err != nil {
		return 0, err
	}
	got := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return got, err
		}
		got++
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return got, err
	}
	return got, rows.Close()
}
