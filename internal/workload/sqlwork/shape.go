package sqlwork

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Column is a column a dataset's table must have: its name and its type as
// one of the classes columnType reduces every dialect's names to ("int",
// "bigint", "char(84)", "timestamp", ...); several classes separated by |
// are alternatives (pgbench makes aid a bigint from scale 20 000 on).
type Column struct {
	Name, Type string
}

// Cols builds columns from "name type" pairs.
func Cols(pairs ...string) []Column {
	out := make([]Column, 0, len(pairs))
	for _, p := range pairs {
		name, typ, _ := strings.Cut(p, " ")
		out = append(out, Column{name, typ})
	}
	return out
}

// columnsSQL per dialect: each column of table $1 in the current schema, in
// order, as name, type name and character length (0 when none).
var columnsSQL = map[string]string{
	"postgres": "SELECT column_name::text, data_type::text, coalesce(character_maximum_length, 0)::bigint FROM information_schema.columns " +
		"WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
	"mysql": "SELECT column_name, data_type, coalesce(character_maximum_length, 0) FROM information_schema.columns " +
		"WHERE table_schema = DATABASE() AND table_name = $1 ORDER BY ordinal_position",
	"sqlite": "SELECT name, type, 0 FROM pragma_table_info($1) ORDER BY cid",
}

var sqliteSized = regexp.MustCompile(`^([a-z ]+?)\s*\(\s*(\d+)\s*\)$`)

// columnType reduces a dialect's type name (and length) to a class.
func columnType(typ string, length int64) string {
	t := strings.ToLower(strings.TrimSpace(typ))
	if m := sqliteSized.FindStringSubmatch(t); m != nil { // SQLite: the declared text
		t = m[1]
		fmt.Sscan(m[2], &length)
	}
	switch t {
	case "integer", "int", "int4", "mediumint":
		return "int"
	case "bigint", "int8":
		return "bigint"
	case "smallint", "int2":
		return "smallint"
	case "character", "char", "bpchar":
		return fmt.Sprintf("char(%d)", length)
	case "character varying", "varchar":
		return fmt.Sprintf("varchar(%d)", length)
	case "timestamp without time zone", "timestamp":
		return "timestamp"
	}
	if length > 0 {
		return fmt.Sprintf("%s(%d)", t, length)
	}
	return t
}

// Columns returns the columns of table as they are in the database.
func Columns(ctx context.Context, c driver.SQL, table string) ([]Column, error) {
	q, ok := columnsSQL[c.Dialect()]
	if !ok {
		return nil, fmt.Errorf("dialect %s is not supported", c.Dialect())
	}
	rows, err := c.Query(ctx, q, table)
	if err != nil {
		return nil, fmt.Errorf("reading the columns of table %s: %w", table, err)
	}
	defer rows.Close()
	var out []Column
	for rows.Next() {
		var name, typ string
		var length int64
		if err := rows.Scan(&name, &typ, &length); err != nil {
			return nil, fmt.Errorf("reading the columns of table %s: %w", table, err)
		}
		out = append(out, Column{strings.ToLower(name), columnType(typ, length)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the columns of table %s: %w", table, err)
	}
	return out, nil
}

// shapeDiff says how table's columns differ from want, or "" when they match
// exactly: the same names in the same order, each of a wanted type.
func shapeDiff(have, want []Column) string {
	for i, w := range want {
		if i >= len(have) {
			return fmt.Sprintf("it has no column %s", w.Name)
		}
		h := have[i]
		if h.Name != w.Name {
			return fmt.Sprintf("column %d is %s, expected %s", i+1, h.Name, w.Name)
		}
		if !slices.Contains(strings.Split(w.Type, "|"), h.Type) {
			return fmt.Sprintf("column %s is %s, expected %s", h.Name, h.Type, strings.ReplaceAll(w.Type, "|", " or "))
		}
	}
	if len(have) > len(want) {
		return fmt.Sprintf("it has an extra column %s", have[len(want)].Name)
	}
	return ""
}

// checkShape returns an error naming the first table of d whose columns are
// not the ones d expects; nil when d expects no particular shape.
func checkShape(ctx context.Context, c driver.SQL, d Dataset) error {
	if d.Columns == nil {
		return nil
	}
	for _, t := range d.Tables {
		want, ok := d.Columns(t)
		if !ok {
			continue
		}
		have, err := Columns(ctx, c, t)
		if err != nil {
			return err
		}
		if len(have) == 0 {
			continue // absent
		}
		if diff := shapeDiff(have, want); diff != "" {
			return &shapeError{Table: t, Diff: diff, Tool: d.Tool}
		}
	}
	return nil
}

// shapeError says that a table with one of a dataset's names is not the
// table fairbench (or the standard tool) makes.
type shapeError struct {
	Table, Diff, Tool string
}

func (e *shapeError) Error() string {
	return fmt.Sprintf("table %s is not the table fairbench or %s makes (%s): fairbench will not use or modify it; "+
		"rerun with --replace to drop it and load its own, or point the target at another database", e.Table, e.Tool, e.Diff)
}
