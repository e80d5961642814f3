// Package querycheck compares a query-set workload's query results across
// engines, for the workloads' tests: it renders every engine's rows in one
// canonical form, and runs the statements `fairbench queries` prints on
// ClickHouse 26.9 in-process (chdb, through scripts/chdb-run.py), the
// modern ClickHouse dialect that no test server runs.
package querycheck

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

// Value renders one result value the same way whatever the engine or its
// driver made of it: integers exactly; other numbers (averages, NUMERIC's
// text) to 6 significant digits, as engines sum floating point in different
// orders, an integral one below 2^53 as an integer (PostgreSQL's AVG
// 1500000.0000 is ClickHouse's 1500000); dates and times as "2006-01-02
// 15:04:05" (a Date as its midnight: PostgreSQL's DATE comes back as a time,
// ClickHouse's as text).
func Value(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.Format(time.DateTime)
	case []byte:
		return text(string(x))
	case string:
		return text(x)
	case json.Number:
		return text(string(x))
	case float64:
		return float(x)
	case float32:
		return float(float64(x))
	}
	return text(fmt.Sprint(v))
}

func text(s string) string {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return strconv.FormatUint(n, 10)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return float(f)
	}
	for _, layout := range []string{time.DateTime, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateTime)
		}
	}
	return s
}

func float(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// Row renders a row: its values joined by "|".
func Row(vals []any) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = Value(v)
	}
	return strings.Join(out, "|")
}

// Checksum is rows' checksum: the first 8 bytes of the SHA-256 of the rows,
// sorted (engines order ties differently), one a line.
func Checksum(rows []string) string {
	sorted := append([]string(nil), rows...)
	sort.Strings(sorted)
	h := sha256.Sum256([]byte(strings.Join(sorted, "\n")))
	return fmt.Sprintf("%x", h[:8])
}

// Width counts the columns of q's select list: its commas outside
// parentheses and quotes before the FROM outside them, plus one; star is
// the width of SELECT *.
func Width(q string, star int) int {
	i := strings.Index(strings.ToUpper(q), "SELECT ")
	if i < 0 {
		return 0
	}
	list := q[i+len("SELECT "):]
	if strings.HasPrefix(strings.TrimSpace(list), "* ") {
		return star
	}
	n, depth, quoted := 1, 0, false
	for j := 0; j < len(list); j++ {
		switch c := list[j]; {
		case quoted:
			if c == '\\' {
				j++
			} else if c == '\'' {
				quoted = false
			}
		case c == '\'':
			quoted = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			n++
		case depth == 0 && strings.HasPrefix(strings.ToUpper(list[j:]), " FROM "):
			return n
		}
	}
	return n
}

// Rows runs q on c and returns its rows, rendered by Row; width is how many
// columns it selects (Width).
func Rows(ctx context.Context, c driver.SQL, q string, width int) ([]string, error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	vals := make([]any, width)
	dest := make([]any, width)
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, Row(vals))
	}
	return out, rows.Err()
}

// Outcome is what chdb made of one statement: an error, or a query's rows
// rendered by Row.
type Outcome struct {
	Kind, Name string
	Error      string
	Rows       []string
}

// script is scripts/chdb-run.py, found from this file's place in the
// repository (tests run in their package's directory).
func script(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate package querycheck's source to find scripts/chdb-run.py")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "chdb-run.py")
}

// Chdb runs what plan sends in dialect — its DDL, the loads of its generated
// rows as INSERT … FORMAT TSV, its fills and queries — and then extra
// statements (queries of another form, say) on ClickHouse's engine through
// chdb, and returns the engine's version and every statement's outcome, in
// order. A statement chdb refuses is an outcome with an Error, not a
// failure of the test: the caller says what that means.
func Chdb(t testing.TB, plan queryset.Plan, dialect string, extra ...queryset.Statement) (string, []Outcome) {
	t.Helper()
	py := testenv.ChdbPython(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := queryset.WriteData(ctx, dir, plan); err != nil {
		t.Fatal(err)
	}
	var stmts bytes.Buffer
	if err := queryset.WriteJSON(&stmts, append(queryset.Statements(plan, dialect, true), extra...)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "statements.jsonl")
	if err := os.WriteFile(path, stmts.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, py, script(t), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", py, script(t), err, stderr.String())
	}
	var version string
	var outcomes []Outcome
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			Kind, Name, Error string
			Rows              *string
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("chdb-run.py printed %q: %v", sc.Text(), err)
		}
		if line.Kind == "version" {
			version = line.Name
			continue
		}
		o := Outcome{Kind: line.Kind, Name: line.Name, Error: line.Error}
		if line.Rows != nil {
			rows, err := decodeRows(*line.Rows)
			if err != nil {
				t.Fatalf("chdb's rows of %s: %v", line.Name, err)
			}
			o.Rows = rows
		}
		outcomes = append(outcomes, o)
	}
	return version, outcomes
}

// decodeRows reads JSONCompactEachRow, numbers kept as their text.
func decodeRows(s string) ([]string, error) {
	var out []string
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	for dec.More() {
		var vals []any
		if err := dec.Decode(&vals); err != nil {
			return nil, err
		}
		out = append(out, Row(vals))
	}
	return out, nil
}
