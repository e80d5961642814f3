package tpcb

// pgbench's custom scripts (-f FILE[@WEIGHT]), read with pgbench's rules
// since PostgreSQL 10: an SQL command ends at an unquoted semicolon and may
// span lines (the last may end at the end of the file); a meta-command is a
// line starting with a backslash, continued by a backslash at a line's end;
// empty lines and lines starting with -- are skipped. :name in SQL is a
// variable, sent as a bound parameter in every query mode ($1, $2, … in
// order of appearance), never pasted into the SQL text: pgbench -M simple
// pastes the value's text, while fairbench's simple mode has the driver
// quote it into the statement (pgx's simple protocol), the same statement
// with no injection. Unlike pgbench, a :name inside a quoted string or a
// comment is left alone. Everything a script can get wrong that is known
// before it runs (syntax, an unknown function, a variable never set, an
// expression of constants that fails, a weight) is an error naming
// file:line before anything connects.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/boundfile"
)

// Predefined variables, as pgbench presets them, in slot order.
var predefined = []string{"client_id", "scale", "default_seed", "random_seed"}

const (
	slotClientID = iota
	slotScale
	slotDefaultSeed
	slotRandomSeed
)

// maxScriptBytes bounds a script file: a script is a few statements.
const maxScriptBytes = 1 << 20

// maxWeight is pgbench's largest weight (INT_MAX).
const maxWeight = math.MaxInt32

type cmdKind uint8

const (
	cmdSQL cmdKind = iota
	cmdSet
	cmdSleep
)

// command is one SQL statement or meta-command of a script.
type command struct {
	kind  cmdKind
	line  int    // where it starts in its file, 1-based
	first string // its first line, as pgbench's -r report shows it
	// SQL: the statement with $n placeholders and the variables bound to them.
	sql    string
	params []variable
	// \set: the variable's slot and the expression.
	slot int
	expr expr
	// \sleep: the amount (an integer or a variable) and its unit.
	amount expr
	unit   time.Duration
}

// script is one parsed script file.
type script struct {
	name   string // the file as given, pgbench's "transaction type"
	op     string // its op name: the file, or the built-in script's mode
	weight int64
	cmds   []command
}

// scriptSet is a run's scripts and the variables they share.
type scriptSet struct {
	scripts []*script
	names   []string // variable names by slot
	total   int64    // sum of the weights
}

// slot numbers a variable name.
func (s *scriptSet) slot(name string) int {
	for i, n := range s.names {
		if n == name {
			return i
		}
	}
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// loadScripts reads the scripts of -b NAME[@WEIGHT] (pgbench's built-in
// scripts, by name or unambiguous prefix) and -f FILE[@WEIGHT] arguments,
// the built-in ones first.
func loadScripts(builtins, specs []string) (*scriptSet, error) {
	set := &scriptSet{names: append([]string(nil), predefined...)}
	for _, spec := range builtins {
		name, weight, err := splitWeight(spec)
		if err != nil {
			return nil, fmt.Errorf("-b %s", strings.TrimPrefix(err.Error(), "-f "))
		}
		var found []string
		for _, m := range []string{tpcbLike, simpleUpdate, selectOnly} {
			if m == name {
				found = []string{m}
				break
			}
			if strings.HasPrefix(m, name) {
				found = append(found, m)
			}
		}
		switch len(found) {
		case 0:
			return nil, fmt.Errorf("-b %s: no such builtin script %q: tpcb-like, simple-update or select-only", spec, name)
		case 1:
		default:
			return nil, fmt.Errorf("-b %s: ambiguous builtin name: %d scripts found for prefix %q (%s)", spec, len(found), name, strings.Join(found, ", "))
		}
		sc, err := set.parse(pgbenchNames[found[0]], builtinScript(found[0], "postgres"))
		if err != nil {
			return nil, err
		}
		sc.op, sc.weight = found[0], weight
		set.scripts = append(set.scripts, sc)
		set.total += weight
	}
	for _, spec := range specs {
		file, weight, err := splitWeight(spec)
		if err != nil {
			return nil, err
		}
		data, err := readScript(file)
		if err != nil {
			return nil, err
		}
		sc, err := set.parse(file, string(data))
		if err != nil {
			return nil, err
		}
		sc.op, sc.weight = file, weight
		set.scripts = append(set.scripts, sc)
		set.total += weight
	}
	if len(set.scripts) > 0 && set.total == 0 {
		return nil, errors.New("total script weight must not be zero: give a script a weight above 0 (FILE@1)")
	}
	return set, set.check()
}

func readScript(file string) ([]byte, error) {
	b, err := boundfile.Read(file, maxScriptBytes, "a pgbench script")
	if err != nil {
		return nil, fmt.Errorf("script %w", err)
	}
	return b, nil
}

// splitWeight splits FILE@WEIGHT at its last @, with pgbench's checks.
func splitWeight(spec string) (string, int64, error) {
	i := strings.LastIndexByte(spec, '@')
	if i < 0 {
		return spec, 1, nil
	}
	file, w := spec[:i], spec[i+1:]
	if file == "" {
		return "", 0, fmt.Errorf("-f %s: no file before the @", spec)
	}
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return "", 0, fmt.Errorf("-f %s: weight specification out of range (0 .. %d): %s", spec, maxWeight, w)
		}
		return "", 0, fmt.Errorf("-f %s: invalid weight specification: @%s (give a whole number from 0 to %d)", spec, w, maxWeight)
	}
	if n < 0 || n > maxWeight {
		return "", 0, fmt.Errorf("-f %s: weight specification out of range (0 .. %d): %s", spec, maxWeight, w)
	}
	return file, n, nil
}

// parse reads one script's text.
func (s *scriptSet) parse(file, text string) (*script, error) {
	sc := &script{name: file}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var sql strings.Builder // the SQL command being read
	sqlLine := 0
	var sq sqlScanner
	errorf := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	for i := 0; i < len(lines); i++ {
		rest := lines[i]
		lineNo := i + 1
		for rest != "" || sql.Len() == 0 {
			if sql.Len() == 0 {
				trimmed := strings.TrimLeft(rest, " \t\f\v")
				if trimmed == "" || strings.HasPrefix(trimmed, "--") {
					break
				}
				if strings.HasPrefix(trimmed, `\`) {
					// A meta-command, with its backslash continuations.
					meta := trimmed
					for strings.HasSuffix(meta, `\`) && i+1 < len(lines) {
						i++
						meta = strings.TrimSuffix(meta, `\`) + " " + lines[i]
					}
					c, err := s.meta(meta, lineNo)
					if err != nil {
						return nil, errorf(lineNo, "%v", err)
					}
					sc.cmds = append(sc.cmds, c)
					break
				}
				sqlLine = lineNo
				sq = sqlScanner{}
			}
			n, end, err := sq.scan(rest)
			if err != nil {
				return nil, errorf(lineNo, "%v", err)
			}
			sql.WriteString(rest[:n])
			rest = rest[n:]
			if !end {
				sql.WriteByte('\n')
				break
			}
			c, err := s.sqlCommand(sql.String(), sqlLine)
			if err != nil {
				return nil, errorf(sqlLine, "%v", err)
			}
			sc.cmds = append(sc.cmds, c)
			sql.Reset()
			if strings.TrimSpace(rest) == "" {
				break
			}
		}
	}
	if strings.TrimSpace(sql.String()) != "" {
		if sq.quote != 0 || sq.dollar != "" || sq.comment > 0 {
			return nil, errorf(sqlLine, "unterminated quoted string or comment at the end of the file")
		}
		c, err := s.sqlCommand(sql.String(), sqlLine)
		if err != nil {
			return nil, errorf(sqlLine, "%v", err)
		}
		sc.cmds = append(sc.cmds, c)
	}
	if len(sc.cmds) == 0 {
		return nil, fmt.Errorf("%s: empty script: no SQL command or meta-command", file)
	}
	return sc, nil
}

// sqlScanner follows quotes and comments across the lines of one SQL command.
type sqlScanner struct {
	quote   byte   // ' or " while inside one
	dollar  string // the $tag$ while inside a dollar-quoted string
	comment int    // nesting of /* */ comments
}

// scan reads line up to the semicolon that ends the command (included), or
// all of it: n bytes read, end when the command ended.
func (q *sqlScanner) scan(line string) (n int, end bool, err error) {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q.comment > 0:
			if strings.HasPrefix(line[i:], "*/") {
				q.comment--
				i++
			} else if strings.HasPrefix(line[i:], "/*") {
				q.comment++
				i++
			}
		case q.quote != 0:
			if c == q.quote {
				q.quote = 0
			}
		case q.dollar != "":
			if strings.HasPrefix(line[i:], q.dollar) {
				i += len(q.dollar) - 1
				q.dollar = ""
			}
		case c == '\'' || c == '"':
			q.quote = c
		case c == '$':
			if tag, ok := dollarTag(line[i:]); ok {
				q.dollar = tag
				i += len(tag) - 1
			}
		case strings.HasPrefix(line[i:], "--"):
			return len(line), false, nil
		case strings.HasPrefix(line[i:], "/*"):
			q.comment++
			i++
		case c == '\\':
			word := line[i:]
			if j := strings.IndexAny(word, " \t;"); j > 0 {
				word = word[:j]
			}
			if strings.HasPrefix(line[i:], `\;`) {
				return 0, false, errors.New(`\; (several statements sent as one) is not supported: end each statement with ;`)
			}
			return 0, false, fmt.Errorf("%s after an SQL command is not supported (no \\gset, \\aset or \\cset): end the command with ;", word)
		case c == ';':
			return i + 1, true, nil
		}
	}
	return len(line), false, nil
}

// dollarTag reads a $tag$ opening at the start of s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1], true
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (j > 1 && c >= '0' && c <= '9')) {
			return "", false
		}
	}
	return "", false
}

// sqlCommand makes an SQL command of text: :name variables become $n
// placeholders (outside quotes and comments; :: is a cast).
func (s *scriptSet) sqlCommand(text string, line int) (command, error) {
	text = strings.TrimSpace(text)
	c := command{kind: cmdSQL, line: line, first: text}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		c.first = text[:i]
	}
	var b strings.Builder
	var quote byte
	dollar := ""
	comment := 0
	for i := 0; i < len(text); {
		ch, rest := text[i], text[i:]
		switch {
		case comment > 0:
			if strings.HasPrefix(rest, "*/") || strings.HasPrefix(rest, "/*") {
				comment += map[bool]int{true: 1, false: -1}[rest[0] == '/']
				b.WriteString(rest[:2])
				i += 2
				continue
			}
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case dollar != "":
			if strings.HasPrefix(rest, dollar) {
				b.WriteString(dollar)
				i += len(dollar)
				dollar = ""
				continue
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case strings.HasPrefix(rest, "--"):
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			b.WriteString(rest[:end])
			i += end
			continue
		case strings.HasPrefix(rest, "/*"):
			comment++
			b.WriteString("/*")
			i += 2
			continue
		case ch == '$':
			if tag, ok := dollarTag(rest); ok {
				dollar = tag
				b.WriteString(tag)
				i += len(tag)
				continue
			}
		case strings.HasPrefix(rest, "::"):
			b.WriteString("::")
			i += 2
			continue
		case ch == ':':
			j := 1
			for j < len(rest) && isNameByte(rest[j]) {
				j++
			}
			if j > 1 {
				name := rest[1:j]
				c.params = append(c.params, variable{name: name, slot: s.slot(name)})
				fmt.Fprintf(&b, "$%d", len(c.params))
				i += j
				continue
			}
		}
		b.WriteByte(ch)
		i++
	}
	c.sql = strings.TrimSuffix(strings.TrimSpace(b.String()), ";")
	if len(c.params) > 65535 {
		return c, errors.New("more than 65535 variables in one statement")
	}
	return c, nil
}

// meta parses a meta-command line (its continuations joined).
func (s *scriptSet) meta(text string, line int) (command, error) {
	fields := strings.Fields(text)
	c := command{line: line, first: strings.TrimSpace(text)}
	if len(fields) == 0 || fields[0] == `\` {
		return c, errors.New(`a lone \ is no meta-command: write \set or \sleep`)
	}
	name := fields[0]
	switch strings.ToLower(name) {
	case `\set`:
		if len(fields) < 3 {
			return c, errors.New(`\set needs a variable name and an expression: \set aid random(1, 100000 * :scale)`)
		}
		v := fields[1]
		for i := 0; i < len(v); i++ {
			if !isNameByte(v[i]) {
				return c, fmt.Errorf(`\set %s: a variable name is made of letters, digits and _`, v)
			}
		}
		rest := strings.TrimSpace(text[strings.Index(text, v)+len(v):])
		e, err := parseExpr(rest, s.slot)
		if err != nil {
			return c, fmt.Errorf(`\set %s: %v`, v, err)
		}
		c.kind, c.slot, c.expr = cmdSet, s.slot(v), e
		return c, nil
	case `\sleep`:
		if len(fields) < 2 || len(fields) > 3 {
			return c, errors.New(`\sleep takes an amount and an optional unit: \sleep 10 ms`)
		}
		unit := "s"
		if len(fields) == 3 {
			unit = strings.ToLower(fields[2])
		}
		c.unit = map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[unit]
		if c.unit == 0 {
			return c, fmt.Errorf(`\sleep: unknown unit %q: use us, ms or s`, fields[2])
		}
		amount := fields[1]
		if strings.HasPrefix(amount, ":") {
			e, err := parseExpr(amount, s.slot)
			if err != nil {
				return c, fmt.Errorf(`\sleep: %v`, err)
			}
			c.amount = e
		} else {
			n, err := strconv.ParseInt(amount, 10, 64)
			if err != nil || n < 0 {
				return c, fmt.Errorf(`\sleep %s: give a whole number of %s, or a :variable`, amount, unit)
			}
			c.amount = literal{intValue(n)}
		}
		c.kind = cmdSleep
		return c, nil
	case `\setshell`, `\shell`:
		return c, fmt.Errorf("%s runs a shell command, which fairbench does not do: set the value with \\set", name)
	case `\if`, `\elif`, `\else`, `\endif`:
		return c, fmt.Errorf("%s (conditional blocks) is not supported: split the branches into scripts with weights (-f FILE@W)", name)
	case `\gset`, `\aset`, `\cset`:
		return c, fmt.Errorf("%s (storing query results in variables) is not supported", name)
	case `\startpipeline`, `\endpipeline`, `\syncpipeline`:
		return c, fmt.Errorf("%s (pipeline mode) is not supported", name)
	}
	return c, fmt.Errorf("invalid command %s (pgbench's meta-commands fairbench runs: \\set, \\sleep)", name)
}

// check refuses a variable that no script sets and pgbench does not
// preset, and evaluates what depends on no variable, so that an expression
// bound to fail (division by zero, an empty random range) fails here.
func (s *scriptSet) check() error {
	set := map[int]bool{}
	for i := range predefined {
		set[i] = true
	}
	for _, sc := range s.scripts {
		for _, c := range sc.cmds {
			if c.kind == cmdSet {
				set[c.slot] = true
			}
		}
	}
	probe := &env{vars: &vars{}, rng: rand.New(rand.NewPCG(1, 2))}
	for _, sc := range s.scripts {
		for _, c := range sc.cmds {
			var used []variable
			switch c.kind {
			case cmdSQL:
				used = c.params
			case cmdSet:
				used = variablesOf(c.expr, nil)
			case cmdSleep:
				used = variablesOf(c.amount, nil)
			}
			for _, v := range used {
				if !set[v.slot] {
					return fmt.Errorf("%s:%d: undefined variable %q: no \\set in the scripts sets it (preset ones: %s)",
						sc.name, c.line, v.name, strings.Join(predefined, ", "))
				}
			}
			if c.kind == cmdSet && len(used) == 0 {
				if _, err := c.expr.eval(probe); err != nil {
					return fmt.Errorf("%s:%d: %v", sc.name, c.line, err)
				}
			}
		}
	}
	return nil
}

// sleeps reports whether a script has a \sleep.
func (s *scriptSet) sleeps() bool {
	for _, sc := range s.scripts {
		for _, c := range sc.cmds {
			if c.kind == cmdSleep {
				return true
			}
		}
	}
	return false
}

// choose picks a script by weight, as pgbench's chooseScript does.
func (s *scriptSet) choose(rng *rand.Rand) int {
	if len(s.scripts) == 1 {
		return 0
	}
	w := rng.Int64N(s.total)
	i := 0
	for {
		w -= s.scripts[i].weight
		if w < 0 {
			return i
		}
		i++
	}
}

// builtinScript is pgbench's built-in script for mode, in pgbench's own
// words (its -r report shows these lines), with the dialect's BEGIN and END.
func builtinScript(mode, dialect string) string {
	begin, end := "BEGIN;", "END;"
	switch dialect {
	case "sqlite":
		begin = "BEGIN IMMEDIATE;"
	case "mysql":
		end = "COMMIT;"
	}
	switch mode {
	case selectOnly:
		return "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
	case simpleUpdate:
		return `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
` + begin + `
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
` + end + "\n"
	}
	return `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
` + begin + `
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
` + end + "\n"
}
