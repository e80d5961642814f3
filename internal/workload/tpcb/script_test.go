package tpcb

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eval parses and evaluates src with the predefined variables set (scale 2,
// client_id 3) and x = 7.
func eval(t testing.TB, src string) (value, error) {
	set := &scriptSet{names: append([]string(nil), predefined...)}
	e, err := parseExpr(src, set.slot)
	if err != nil {
		return value{}, err
	}
	v := &vars{vals: make([]value, len(set.names)), set: make([]bool, len(set.names))}
	for i, n := range set.names {
		v.set[i] = true
		switch n {
		case "scale":
			v.vals[i] = intValue(2)
		case "client_id":
			v.vals[i] = intValue(3)
		case "x":
			v.vals[i] = intValue(7)
		case "nope":
			v.set[i] = false
		default:
			v.vals[i] = intValue(0)
		}
	}
	return e.eval(&env{vars: v, rng: rand.New(rand.NewPCG(1, 2))})
}

// pgbench's expression semantics: integer arithmetic that fails on overflow
// with pgbench's texts, integer division, doubles where a side is one, its
// precedence, and the random family's checks.
func TestPgbenchExpressions(t *testing.T) {
	for src, want := range map[string]string{
		"1 + 2 * 3":               "7",
		"(1 + 2) * 3":             "9",
		"7 / 2":                   "3",
		"-7 / 2":                  "-3",
		"7 % 3":                   "1",
		"7.0 / 2":                 "3.5",
		"1.0 / 0":                 "+Inf",
		"10 * :scale + :x":        "27",
		":client_id":              "3",
		"abs(-5)":                 "5",
		"int(3.9)":                "3",
		"double(3)":               "3",
		"greatest(1, 5, 3)":       "5",
		"least(4, 2.5)":           "2.5",
		"mod(-7, 3)":              "-1",
		"pow(2, 10)":              "1024",
		"1 < 2 and 2 < 3":         "true",
		"not (1 = 1) or false":    "false",
		"null is null":            "true",
		"5 & 3 | 8":               "9",
		"1 << 4":                  "16",
		"-9223372036854775808":    "-9223372036854775808",
		"random(5, 5)":            "5",
		"random_zipfian(1, 1, 2)": "1",
		"RANDOM(1, 1)":            "1",
	} {
		v, err := eval(t, src)
		if err != nil || v.String() != want {
			t.Errorf("%s = %v (%v), want %s", src, v, err, want)
		}
	}
	for src, want := range map[string]string{
		"1 / 0":                         "division by zero",
		"1 % 0":                         "division by zero",
		"9223372036854775807 + 1":       "bigint add out of range",
		"-9223372036854775807 - 2":      "bigint sub out of range",
		"4611686018427387904 * 2":       "bigint mul out of range",
		"(-9223372036854775807-1) / -1": "bigint out of range",
		"int(sqrt(-1))":                 "double to int overflow for NaN",
		"random(5, 1)":                  "empty range given to random",
		"random(-9223372036854775807, 9223372036854775807)": "random range is too large",
		"random_exponential(1, 10, 0)":                      "exponential parameter must be greater than zero",
		"random_gaussian(1, 10, 1.5)":                       "gaussian parameter must be at least 2.000000",
		"random_zipfian(1, 10, 1.0)":                        "zipfian parameter must be in range [1.001, 1000]",
		":nope + 1":                                         `undefined variable "nope"`,
		"1 +":                                               "syntax error",
		"(1":                                                "missing ')'",
		"foo(1)":                                            `unknown function "foo"`,
		"hash(1)":                                           "not supported by fairbench",
		"random(1)":                                         "random takes 2 arguments, not 1",
		"99999999999999999999":                              "out of range",
		"case when 1 then 2 end":                            "CASE is not supported",
		"1 @ 2":                                             "unexpected character",
	} {
		if _, err := eval(t, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}

// The random family stays in its bounds.
func TestPgbenchRandomFunctionsStayInRange(t *testing.T) {
	for _, src := range []string{"random(-3, 7)", "random_exponential(-3, 7, 2.5)", "random_gaussian(-3, 7, 2.5)", "random_zipfian(-3, 7, 1.5)"} {
		set := &scriptSet{names: append([]string(nil), predefined...)}
		e, err := parseExpr(src, set.slot)
		if err != nil {
			t.Fatal(err)
		}
		en := &env{vars: &vars{}, rng: rand.New(rand.NewPCG(5, 6))}
		seen := map[int64]bool{}
		for range 5000 {
			v, err := e.eval(en)
			if err != nil || v.kind != vInt || v.i < -3 || v.i > 7 {
				t.Fatalf("%s gave %v, %v", src, v, err)
			}
			seen[v.i] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s drew only %v", src, seen)
		}
	}
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pgbench's own built-in script reads as pgbench shows it under -r, its
// variables bound as parameters in order.
func TestPgbenchScriptParsesTheBuiltinScript(t *testing.T) {
	set, err := loadScripts(nil, []string{writeScript(t, builtinScript(tpcbLike, "postgres"))})
	if err != nil {
		t.Fatal(err)
	}
	cmds := set.scripts[0].cmds
	if len(cmds) != 11 {
		t.Fatalf("%d commands, want pgbench's 11", len(cmds))
	}
	if cmds[0].first != `\set aid random(1, 100000 * :scale)` || cmds[4].first != "BEGIN;" || cmds[10].first != "END;" {
		t.Errorf("first lines: %q %q %q", cmds[0].first, cmds[4].first, cmds[10].first)
	}
	ins := cmds[9]
	if ins.sql != "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)" || len(ins.params) != 4 || ins.params[0].name != "tid" {
		t.Errorf("insert: %q %v", ins.sql, ins.params)
	}
}

// PostgreSQL 10+ rules: an SQL command spans lines until its semicolon;
// several commands and a meta-command may share a line; casts, quoted text
// and comments hold no variables; meta-commands continue with a backslash.
func TestPgbenchScriptSyntax(t *testing.T) {
	set, err := loadScripts(nil, []string{writeScript(t, `-- a comment
\set a \
   1 + 2
\sleep 1 ms

SELECT :a::int,
       ':a', $$ :a $$ /* :a */
  FROM t; SELECT 2; \set b :a * 2
UPDATE t SET x = :b -- last, without a semicolon
`) + "@3"})
	if err != nil {
		t.Fatal(err)
	}
	sc := set.scripts[0]
	if sc.weight != 3 || len(sc.cmds) != 6 {
		t.Fatalf("weight %d, %d commands: %+v", sc.weight, len(sc.cmds), sc.cmds)
	}
	sel := sc.cmds[2]
	if sel.line != 6 || sel.first != "SELECT :a::int," || len(sel.params) != 1 || !strings.HasPrefix(sel.sql, "SELECT $1::int,\n       ':a', $$ :a $$ /* :a */") {
		t.Errorf("select: line %d first %q sql %q params %v", sel.line, sel.first, sel.sql, sel.params)
	}
	if sc.cmds[4].kind != cmdSet || sc.cmds[5].sql != "UPDATE t SET x = $1 -- last, without a semicolon" {
		t.Errorf("commands: %+v", sc.cmds[4:])
	}
}

// Hostile scripts and weights fail before anything runs, naming file:line.
func TestPgbenchScriptErrorsNameFileAndLine(t *testing.T) {
	for text, want := range map[string]string{
		"SELECT 1;\n\\set x 1 +\n":           ":2: \\set x: syntax error",
		"\\set x 10 / 0\n":                   ":1: division by zero",
		"\\set x random(10, 1)\n":            ":1: empty range given to random",
		"SELECT 1;\n\nSELECT :missing;\n":    `:3: undefined variable "missing"`,
		"\\setshell x echo 1\n":              ":1: \\setshell runs a shell command",
		"\\if 1\nSELECT 1;\n\\endif\n":       ":1: \\if (conditional blocks) is not supported",
		"\\bogus\n":                          ":1: invalid command \\bogus",
		"SELECT 1 \\gset\n":                  ":1: \\gset after an SQL command is not supported",
		"SELECT 1 \\; SELECT 2;\n":           ":1: \\; (several statements sent as one)",
		"SELECT 'open\n":                     ":1: unterminated quoted string",
		"\\sleep 1 hour\n":                   `:1: \sleep: unknown unit "hour"`,
		"-- nothing\n\n":                     "empty script",
		"\\set x :x + 1\nSELECT sqrt(:x);\n": "", // :x is set by the script: fine
	} {
		p := writeScript(t, text)
		_, err := loadScripts(nil, []string{p})
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%q: error %v, want %s%s", text, err, p, want)
		}
	}
	p := writeScript(t, "SELECT 1;\n")
	for spec, want := range map[string]string{
		p + "@1000000000000": "weight specification out of range (0 .. 2147483647)",
		p + "@NaN":           "invalid weight specification: @NaN",
		p + "@-1":            "out of range",
		p + "@0":             "total script weight must not be zero",
		"@5":                 "no file before the @",
		p + ".missing":       "no such file",
	} {
		if _, err := loadScripts(nil, []string{spec}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-f %s: error %v, want %q", spec, err, want)
		}
	}
}

// Weighted choice follows the weights, and a weight of 0 is never chosen.
func TestPgbenchScriptWeights(t *testing.T) {
	a, b, c := writeScript(t, "SELECT 1;"), writeScript(t, "SELECT 2;"), writeScript(t, "SELECT 3;")
	set, err := loadScripts(nil, []string{a + "@1", b + "@3", c + "@0"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var n [3]int
	for range 40000 {
		n[set.choose(rng)]++
	}
	if n[2] != 0 || math.Abs(float64(n[1])/float64(n[0])-3) > 0.3 {
		t.Fatalf("choices %v for weights 1, 3, 0", n)
	}
}

// The expression parser never panics, and what it accepts evaluates
// without panicking either.
func FuzzPgbenchExpression(f *testing.F) {
	for _, s := range []string{"1 + 2 * 3", "random(1, 100000 * :scale)", "random_zipfian(1, :x, 1.07)",
		"-9223372036854775808 / -1", "greatest(1.5, :x, least(2, 3))", "not (1 < 2) and :x is not null",
		"(((((1)))))", "1e308 * 10", "int(1e300)", "abs(-9223372036854775807 - 1)", "5 % -1", "1 << 70", ":", "random_gaussian(0, 1, 2)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 10_000 {
			return
		}
		_, _ = eval(t, src)
	})
}

// -b names pgbench's built-in scripts, by name or unambiguous prefix, with
// weights, run beside -f's files.
func TestPgbenchBuiltinScriptsByName(t *testing.T) {
	set, err := loadScripts([]string{"tpcb@2", "select-only"}, []string{writeScript(t, "SELECT 1;")})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.scripts) != 3 || set.scripts[0].op != tpcbLike || set.scripts[0].weight != 2 || set.scripts[1].name != "<builtin: select only>" ||
		len(set.scripts[1].cmds) != 2 || set.total != 4 {
		t.Fatalf("scripts %+v", set.scripts)
	}
	for spec, want := range map[string]string{"s": `ambiguous builtin name: 2 scripts found for prefix "s"`, "bogus": "no such builtin script", "tpcb@x": "invalid weight"} {
		if _, err := loadScripts([]string{spec}, nil); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "-b ") {
			t.Errorf("-b %s: %v, want %q", spec, err, want)
		}
	}
}

// The script reader never panics or loops on any text.
func FuzzPgbenchScript(f *testing.F) {
	f.Add(builtinScript(tpcbLike, "postgres"))
	for _, s := range []string{"SELECT 1; \\set x 1\nSELECT :x", "\\set a \\\n 1 +\\\n 2\n", "SELECT $tag$ ; $tag$, ';', \"a;b\" /* ; */ -- ;\n;",
		"SELECT 'open", "\\sleep :x us\n", "SELECT :a::int;;;\n\n;", "/* /* nested */ ; */ SELECT 1;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 10_000 {
			return
		}
		set := &scriptSet{names: append([]string(nil), predefined...)}
		sc, err := set.parse("fuzz.sql", text)
		if err != nil {
			return
		}
		sc.weight, set.total = 1, 1
		set.scripts = []*script{sc}
		_ = set.check()
	})
}
