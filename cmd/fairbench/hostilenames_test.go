package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// hostileNames are names that carry markup, spreadsheet formulas and
// terminal control sequences: HTML tags and attributes, a formula start of
// each kind, ANSI colour and cursor movements, a carriage return that
// overwrites its line, a C1 CSI, a bidi override and a line feed.
var hostileNames = []string{
	"<script>alert(1)</script>",
	`"><img src=x onerror=alert(2)>`,
	"=cmd|' /C calc'!A0",
	"+cmd|' /C calc'!A0",
	"-2+3+cmd|' /C calc'!A0",
	"@SUM(1+1)*cmd|' /C calc'!A0",
	"\t=1+1",
	"\r=1+1",
	"red\x1b[31mcoloured",
	"up\x1b[2A\x1b[Kover",
	"back\roverwritten",
	"c1\u009b31mcsi",
	"bidi\u202eevil",
	"two\nlines | pipe",
}

// rawControl reports the first control or bidi character of s left raw.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || r == '\u202e' {
			return r, true
		}
	}
	return 0, false
}

// Names that come from a results file (stored by an older fairbench or
// another tool, or imported) reach every output format escaped for it: no
// control character reaches the terminal or Markdown, Markdown opens no
// HTML tag and splits no table row, no CSV cell starts a formula, JSON
// holds the names intact, benchstat's names stay one field, the HTML
// report keeps escaping. On main, report --format md wrote <script> raw,
// CSV cells started with =, and the text report wrote ESC to the terminal.
func TestHostileNamesInEveryOutputFormat(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "fairbench.db")
	s, err := store.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	series, all, enc := steadyTpcbSeries(t, 5)
	const study, workload = "<b>study</b>\x1b]0;title\x07=1+1", "<i>wl</i>\x1b[32m|x"
	store1 := func(target string, rep int) {
		t.Helper()
		r := &result.Run{Source: "fairbench", StudyName: study, StudyHash: "hh", Target: target, TargetURL: "postgres://h/db",
			Workload: workload, Kind: "tpcb", Params: map[string]any{"scale": int64(1)}, Clients: 4, Repetition: rep, Status: result.StatusOK,
			Duration: 5 * time.Second, Summary: result.Summary{Throughput: 1000 + float64(rep), Transactions: all.TotalCount(), MeasuredSeconds: 5},
			Ops:    []result.Op{{Name: "tpcb", Count: all.TotalCount(), Histogram: enc}},
			Series: slices.Clone(series)}
		if _, err := s.AppendRun(r); err != nil {
			t.Fatal(err)
		}
	}
	for rep := 1; rep <= 2; rep++ {
		store1("baseline", rep)
		for _, n := range hostileNames {
			store1(n, rep)
		}
	}
	s.Close()

	outputs := map[string]string{}
	for _, args := range [][]string{
		{"report", "--format", "text"}, {"report", "--format", "md"}, {"report", "--format", "html"},
		{"report", "--format", "json"}, {"report", "--format", "csv"}, {"report", "--format", "benchstat"},
		{"compare", "--baseline", "baseline", "--format", "text"}, {"compare", "--baseline", "baseline", "--format", "md"},
		{"compare", "--baseline", "baseline", "--format", "json"}, {"compare", "--baseline", "baseline", "--format", "csv"},
		{"compare", "--baseline", "baseline", "--format", "benchstat"},
		{"compare", "--baseline", "baseline", "--peak"}, {"compare", "--baseline", "baseline", "--peak", "--format", "md"},
		{"studies"},
	} {
		o := fairbench(t, dir, append(args, "--results", results)...)
		key := strings.Join(args, " ")
		if o.code != 0 {
			t.Fatalf("%s: exit %d: %s", key, o.code, o.stderr)
		}
		outputs[key] = o.stdout
		if r, raw := rawControl(o.stderr); raw {
			t.Errorf("%s: stderr holds %U raw", key, r)
		}
	}
	for key, out := range outputs {
		format := key[strings.LastIndex(key, " ")+1:]
		if format == "--peak" {
			format = "text"
		}
		switch format {
		case "studies":
			if r, raw := rawControl(out); raw || !strings.Contains(out, `<b>study</b>\x1b]0;title\a=1+1`) {
				t.Errorf("studies lists the study name with %U raw or not at all:\n%s", r, out)
			}
		case "text", "md":
			if r, raw := rawControl(out); raw {
				t.Errorf("%s writes %U raw", key, r)
			}
			if !strings.Contains(out, `red\x1b[31mcoloured`) {
				t.Errorf("%s does not show the coloured name escaped (red\\x1b[31mcoloured)", key)
			}
			if format == "md" {
				for _, tag := range []string{"<script", "<img", "<b>", "<i>"} {
					if strings.Contains(out, tag) {
						t.Errorf("%s opens the tag %s", key, tag)
					}
				}
				if !strings.Contains(out, "&lt;script>alert(1)&lt;/script>") {
					t.Errorf("%s does not show <script> as text", key)
				}
				assertMarkdownRows(t, key, out)
			}
		case "html":
			for _, tag := range []string{"<script>alert", "<img src=x", "<b>study", "<i>wl"} {
				if strings.Contains(out, tag) {
					t.Errorf("%s writes the tag %s", key, tag)
				}
			}
			if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
				t.Errorf("%s does not show <script> as text", key)
			}
		case "json":
			if !json.Valid([]byte(out)) {
				t.Fatalf("%s is not valid JSON", key)
			}
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			strs := map[string]bool{}
			collectStrings(v, strs)
			for _, n := range append([]string{study, workload}, hostileNames...) {
				if !strs[n] {
					t.Errorf("%s does not hold the name %q intact", key, n)
				}
			}
		case "csv":
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			neutralised := 0
			for _, rec := range recs {
				for _, c := range rec {
					if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
						if _, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err != nil {
							t.Errorf("%s: the cell %q starts a formula", key, c)
						}
					}
					if c == "'=cmd|' /C calc'!A0" {
						neutralised++
					}
				}
			}
			if neutralised == 0 {
				t.Errorf("%s does not hold the formula name as '=cmd|' /C calc'!A0", key)
			}
		case "benchstat":
			names := 0
			for _, l := range strings.Split(out, "\n") {
				if r, raw := rawControl(l); raw {
					t.Errorf("%s: the line %q holds %U raw", key, l, r)
				}
				if !strings.HasPrefix(l, "Benchmark") {
					continue
				}
				name, _, _ := strings.Cut(l, "\t")
				if strings.ContainsAny(name, " \r\v\f\u0085\u00a0") {
					t.Errorf("%s: the benchmark name %q holds a space", key, name)
				}
				if strings.Contains(name, "target=<script>alert(1)<_script>") {
					names++
				}
			}
			if names == 0 {
				t.Errorf("%s has no line for the target <script>alert(1)</script>:\n%s", key, out)
			}
		}
	}
}

// assertMarkdownRows checks that every row of every Markdown table has as
// many cells as its header: a name's | or line feed split none.
func assertMarkdownRows(t *testing.T, key, out string) {
	t.Helper()
	cols := -1
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			cols = -1
			continue
		}
		n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|")
		if cols < 0 {
			cols = n
		} else if n != cols {
			t.Errorf("%s: a table row has %d cell borders, its header %d: %s", key, n, cols, l)
		}
	}
}

func collectStrings(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case []any:
		for _, e := range x {
			collectStrings(e, into)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, into)
		}
	}
}

// A study file's names are refused when they hold a control character,
// naming the file, the line and the key; printable hostile names run on
// the embedded SQLite target, and the terminal's progress, summary and
// error lines carry them without a raw control character: a URL's path
// (which is not refused) reached the error line with its ESC raw on main.
func TestHostileNamesInAStudyRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	studyText := func(target, url, workload string) string {
		return "[study]\nname = \"s\"\nduration = \"2s\"\nwarmup = \"0s\"\nrepetitions = 1\n\n" +
			"[[target]]\nname = " + strconv.Quote(target) + "\nurl = " + strconv.Quote(url) + "\n\n" +
			"[[workload]]\nkind = \"tpcb\"\nname = " + strconv.Quote(workload) + "\nscale = 1\nclients = [1]\n"
	}
	for _, tc := range []struct{ target, workload, want string }{
		{"red\x1b[31mname", "w", "bad.toml:8:"},
		{"t", "back\roverwritten", "bad.toml:13:"},
		{"bidi\u202eevil", "w", "bad.toml:8:"},
	} {
		write("bad.toml", studyText(tc.target, "sqlite:x.db", tc.workload))
		o := fairbench(t, dir, "validate", "bad.toml")
		assertOneLineError(t, o, tc.want, "holds the control character", "name")
		if r, raw := rawControl(o.stderr); raw {
			t.Errorf("the error holds %U raw: %q", r, o.stderr)
		}
	}

	const target, workload = "<script>alert(1)</script>", "=cmd|' /C calc'!A0"
	// validate's plan shows the URL, which is not refused.
	write("plan.toml", studyText(target, "sqlite:red\x1b[31m.db", workload))
	o := fairbench(t, dir, "validate", "plan.toml")
	if r, raw := rawControl(o.stdout); o.code != 0 || raw || !strings.Contains(o.stdout, `sqlite:red\x1b[31m.db`) {
		t.Errorf("validate's plan (exit %d) shows the URL with %U raw or not at all:\n%s%s", o.code, r, o.stdout, o.stderr)
	}
	write("missing.toml", studyText(target, "sqlite:"+filepath.Join(dir, "no\x1b[31mdir", "x.db"), workload))
	o = fairbench(t, dir, "run", "missing.toml")
	assertOneLineError(t, o, `no\x1b[31mdir`)

	write("s.toml", studyText(target, "sqlite:s.db", workload))
	o = fairbench(t, dir, "run", "s.toml")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stderr, "target="+target+" workload="+workload) || !strings.Contains(o.stderr, "progress: ") {
		t.Errorf("the progress lines do not name the cell as given:\n%s", o.stderr)
	}
	if !strings.Contains(o.stdout, target) || !bytes.Contains([]byte(o.stdout), []byte(workload)) {
		t.Errorf("the summary does not name the target and workload as given:\n%s", o.stdout)
	}
	for what, text := range map[string]string{"stdout": o.stdout, "stderr": o.stderr} {
		if r, raw := rawControl(text); raw {
			t.Errorf("%s holds %U raw", what, r)
		}
	}
}
