// Package docs_test runs every fairbench command the README and the pages
// under docs/ show, so that a command a reader copies works: the fenced ```sh
// blocks are read, their `fairbench …` lines run in document order (the
// README first, then docs/ by path) against the test servers, shortened.
//
// What a block may say about itself, in the Markdown:
//
//   - <!-- not run: REASON --> on the line before the block: its commands are
//     not run (a Kubernetes cluster, machines elsewhere); the test counts them.
//   - `# exits N` at the end of a command: the exit status it is documented
//     to have, when not 0.
//
// ```text blocks are synopses, not commands; a block without an info string
// that holds a fairbench command is an error (mark it sh or text).
package docs_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/plugins" // the drivers testenv.Connect opens
	"github.com/fairbench/fairbench/internal/testenv"
)

// command is one line of a ```sh block that this test runs (isCommand), its
// continuation lines joined.
type command struct {
	file   string
	line   int
	text   string
	exit   int    // the documented exit status
	notRun string // why it is not run, from the block's <!-- not run: … -->
}

func (c command) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

var (
	notRunComment = regexp.MustCompile(`^<!--\s*not run:\s*(.+?)\s*-->$`)
	exitsComment  = regexp.MustCompile(`#\s*exits (\d+)\s*$`)
)

// readCommands returns the commands of one Markdown file, and what is wrong
// with its blocks.
func readCommands(root, rel string) (out []command, problems []string, err error) {
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var (
		inBlock        bool
		info, notRun   string
		pending        string // a <!-- not run --> waiting for its block
		blockStart, n  int
		cont           *command // a command whose line ended with a backslash
		commandInPlain bool
	)
	s := bufio.NewScanner(f)
	for s.Scan() {
		n++
		line := s.Text()
		if strings.HasPrefix(line, "```") {
			if !inBlock {
				inBlock, info, blockStart, notRun, pending = true, strings.TrimSpace(line[3:]), n, pending, ""
				commandInPlain = false
				continue
			}
			inBlock = false
			if commandInPlain {
				problems = append(problems, fmt.Sprintf("%s:%d: a block without an info string holds a command: mark it ```sh (run by this test) or ```text (a synopsis)", rel, blockStart))
			}
			continue
		}
		if !inBlock {
			if m := notRunComment.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				pending = m[1]
			} else if strings.TrimSpace(line) != "" {
				pending = ""
			}
			continue
		}
		if cont != nil {
			cont.text += " " + strings.TrimSpace(strings.TrimSuffix(line, `\`))
			if !strings.HasSuffix(line, `\`) {
				out, cont = append(out, *cont), nil
			}
			continue
		}
		if !isCommand(line) {
			continue
		}
		switch info {
		case "sh":
		case "":
			commandInPlain = true
			continue
		default:
			continue
		}
		c := command{file: rel, line: n, text: strings.TrimSuffix(line, `\`), notRun: notRun}
		if strings.HasSuffix(line, `\`) {
			cont = &c
			continue
		}
		out = append(out, c)
	}
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	for i := range out {
		out[i].text = strings.Join(strings.Fields(out[i].text), " ")
		if m := exitsComment.FindStringSubmatch(out[i].text); m != nil {
			out[i].exit, _ = strconv.Atoi(m[1])
		}
	}
	return out, problems, nil
}

// commandPrefixes begin the lines of a ```sh block that this test runs:
// fairbench's, and the setup a reader runs before them (mkdir). Other lines
// (kubectl, scripts) are left to the reader.
var commandPrefixes = []string{"fairbench ", "./fairbench ", "mkdir "}

func isCommand(line string) bool {
	for _, p := range commandPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// markdownFiles returns README.md and every page under docs/, in the order
// their commands run.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	var docs []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			docs = append(docs, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(docs)
	return append(files, docs...)
}

// server names the test server an example URL of the docs runs against; the
// docs' URLs are the table's keys, and a command with another URL fails the
// test (add it here, or use one of these in the docs).
type server int

const (
	asWritten       server = iota // not connected to by the command (k8s render writes it into manifests)
	postgres                      // a fresh database of the test PostgreSQL
	postgresResults               // another fresh database: a shared results store
	mysql                         // a fresh database of the test MariaDB
	redis                         // the test Redis; kv commands get a key prefix of their own
	mongodb                       // the test FerretDB; ycsb commands get a collection of their own
	clickhouse                    // a fresh database of the test ClickHouse
	opensearch                    // the test OpenSearch 2.19.1; commands get an index of their own
)

var exampleURLs = map[string]server{
	"postgres://bench@127.0.0.1/bench":                  postgres,
	"postgres://bench@db/bench":                         postgres,
	"postgres://bench@stats-db/fairbench":               postgresResults,
	"postgres://fairbench@stats-db.bench.svc/fairbench": asWritten,
	"mysql://bench@127.0.0.1/bench":                     mysql,
	"redis://127.0.0.1:6379":                            redis,
	"mongodb://127.0.0.1:27017/ycsb":                    mongodb,
	"clickhouse://127.0.0.1:9000/default":               clickhouse,
	"opensearch://127.0.0.1:9200":                       opensearch,
	"opensearch://admin@127.0.0.1:9200":                 opensearch,
}

var urlPattern = regexp.MustCompile(`\b[a-z][a-z0-9+]*://[^\s'"]+`)

// shortRule sets a flag's value, for every workload or for one (kind).
type shortRule struct{ flag, kind, value string }

// shortening is the one table of how a documented command is made short: a
// flag's value replaced where the command gives the flag, and the flags
// added where it does not (added). The flags that keep the commands off
// other tests' data (a key prefix, a collection, an index) are set by prepare.
var shortening = []shortRule{
	{"-T", "", "1s"},             // pgbench's duration
	{"--duration", "", "1s"},     // fairbench's and YCSB's
	{"--time", "", "1"},          // sysbench's seconds
	{"--test-time", "", "1"},     // memtier's seconds
	{"--rampup", "", "0s"},       // HammerDB's ramp-up
	{"--scale", "tpcb", "1"},     // 100 000 accounts
	{"--scale", "ssb", "0.01"},   // 60 000 lineorder rows
	{"--warehouses", "", "1"},    // TPC-C
	{"--load-workers", "", "2"},  // the machine's 2 cores
	{"--vus", "", "4"},           // HammerDB's virtual users
	{"--threads", "ycsb", "4"},   // FerretDB answers a few hundred operations a second
	{"--table-size", "", "1000"}, // sysbench's rows per table
	{"--key-maximum", "", "1000"},
	{"-c", "kv", "2"}, // memtier's connections per thread
	{"--docs", "", "2000"},
	{"--bulk-size", "", "500"},
	{"--rows", "", "2000"},
	{"-p recordcount", "", "500"},
	{"-p operationcount", "", "500"},
}

// added holds flags for run commands only.
var added = []shortRule{
	{"--docs", "search", "2000"},   // search loads its index of generated documents when it is missing
	{"--duration", "search", "1s"}, // else it measures its default 60 s
	{"--duration", "ycsb", "1s"},   // a run without operationcount measures 60 s (ycsb.md's rate-limited run: a minute of the docs test)
}

// shorten applies the shortening table to one command's arguments.
func shorten(args []string) []string {
	kind := flagValue(args, "--workload")
	if kind == "" {
		kind = "tpcb" // run's and load's default
	}
	run := len(args) > 1 && args[1] == "run" // load takes no duration
	for _, r := range added {
		if run && (r.kind == "" || r.kind == kind) && flagValue(args, r.flag) == "" {
			args = append(args, r.flag, r.value)
		}
	}
	for _, r := range shortening {
		if r.kind != "" && r.kind != kind {
			continue
		}
		flag, property, _ := strings.Cut(r.flag, " ")
		for i := 0; i+1 < len(args); i++ {
			if args[i] != flag {
				continue
			}
			if property == "" {
				args[i+1] = r.value
			} else if strings.HasPrefix(args[i+1], property+"=") {
				args[i+1] = property + "=" + r.value
			}
		}
	}
	return args
}

func flagValue(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

// setFlag replaces a flag's value, or appends the flag.
func setFlag(args []string, flag, value string) []string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			args[i+1] = value
			return args
		}
	}
	return append(args, flag, value)
}

// servers connects the docs' example URLs to the test servers, each made
// (a fresh database, a key prefix, an index) on first use and shared by
// every command after it, as a reader's commands share one server.
type servers struct {
	t      *testing.T
	urls   map[server]string
	prefix string // redis key prefix
	table  string // ycsb collection on the document store
	keys   string // ycsb table on redis (its records under fb:ycsb:keys:)
	index  string // opensearch index
}

func (s *servers) url(k server) string {
	if u, ok := s.urls[k]; ok {
		return u
	}
	t := s.t
	var u string
	switch k {
	case postgres, postgresResults:
		u = testenv.FreshPostgres(t)
	case mysql:
		u = testenv.FreshMySQL(t)
	case redis:
		u = testenv.RedisURL(t)
		s.prefix = testenv.RedisKeyPrefix(t)
		// ycsb keeps its records under fb:ycsb:TABLE:, not a key prefix.
		s.keys = "fbdocs_" + randomHex(t)
		testenv.DeleteRedisKeysAtEnd(t, "fb:ycsb:"+s.keys+":")
	case mongodb:
		u = testenv.MongoDBURL(t)
		s.table = "fbdocs_" + randomHex(t)
		t.Cleanup(func() {
			d := testenv.Connect(t, u, driver.Options{}).(driver.DocumentAdmin)
			d.Drop(context.Background(), s.table) //nolint:errcheck // best effort
		})
	case clickhouse:
		u = testenv.FreshClickHouse(t)
	case opensearch:
		u = testenv.OpenSearch(t)
		s.index = testenv.OpenSearchIndex(t, u)
	}
	s.urls[k] = u
	return u
}

func randomHex(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// prepare turns a documented command into the one this test runs: test
// servers for the example URLs, shortened, isolated on the shared servers.
func (s *servers) prepare(c command) (string, error) {
	used := map[server]bool{}
	var unknown error
	text := urlPattern.ReplaceAllStringFunc(c.text, func(u string) string {
		k, ok := exampleURLs[u]
		if !ok {
			unknown = fmt.Errorf("example URL %s is not in exampleURLs: use one of those in the docs, or add it", u)
			return u
		}
		if k == asWritten {
			return u
		}
		used[k] = true
		return shellQuote(s.url(k))
	})
	if unknown != nil {
		return "", unknown
	}
	// The shell does the quoting and redirection; the arguments before a
	// comment or a redirection are the command's own.
	body, tail := text, ""
	if i := strings.IndexAny(text, "#>|"); i >= 0 {
		body, tail = text[:i], text[i:]
	}
	args := shorten(strings.Fields(body))
	kind := flagValue(args, "--workload")
	switch {
	case used[redis] && kind == "kv":
		args = setFlag(args, "--key-prefix", s.prefix)
	case used[mongodb] && kind == "ycsb":
		args = append(args, "-p", "table="+s.table)
	case used[redis] && kind == "ycsb":
		args = append(args, "-p", "table="+s.keys)
	case used[opensearch]:
		args = setFlag(args, "--index", s.index)
	}
	if args[0] == "./fairbench" {
		args[0] = "fairbench" // the binary this test built, on the PATH
	}
	return strings.Join(args, " ") + " " + tail, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fixtures are the files the documented commands name, made in the working
// directory before the first command runs: inputs of imports, a study, a
// corpus, ClickBench's hits file, the examples (shortened).
func fixtures(t *testing.T, root, dir, bin string) {
	t.Helper()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// study.toml: two SQLite configurations, short; docs/commands/run.md and
	// friends run, validate and report it.
	write("study.toml", studyFixture)
	// The examples, shortened: durations of a second, no warm-up or cool-down.
	short := regexp.MustCompile(`(?m)^(warmup|duration|cooldown) = "[^"]*"`)
	examples, err := filepath.Glob(filepath.Join(root, "examples", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		rel, _ := filepath.Rel(root, e)
		write(rel, short.ReplaceAllStringFunc(read(rel), func(m string) string {
			key, _, _ := strings.Cut(m, " ")
			if key == "duration" {
				return key + ` = "1s"`
			}
			return key + ` = "0s"`
		}))
	}
	// Imports (docs/commands/import.md): pgbench and sysbench outputs.
	pg := "internal/adapter/testdata/pgbench/"
	write("pgbench-out/select-only.txt", read(pg+"pg15-select-only-P-r.txt"))
	write("pgbench-out/tpcb.txt", read(pg+"pg16-tpcb-P-r.txt"))
	write("run1.txt", read(pg+"pg15-plain.txt"))
	write("run2.txt", read(pg+"pg14-simple-update-t.txt"))
	write("sysbench.txt", read("internal/adapter/testdata/sysbench/sb1-oltp-read-write-interval.txt"))
	// A corpus of http_logs-shaped documents (docs/workloads/bulkindex-search.md).
	var corpus strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&corpus, `{"@timestamp": %d, "clientip": "10.0.%d.%d", "request": "GET /page%d HTTP/1.0", "status": 200, "size": %d}`+"\n",
			893964617+i, i/250, i%250, i%50, 100+i)
	}
	write("docs.ndjson", corpus.String())
	// ClickBench's results directory, where report --format clickbench writes.
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	// ClickBench's hits.tsv: fairbench's synthetic rows, as `queries --data` writes them.
	run := exec.Command(filepath.Join(bin, "fairbench"), "queries", "--workload", "clickbench", "--engine", "postgres", "--rows", "2000", "--data", dir)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("writing hits.tsv: %v\n%s", err, out)
	}
}

const studyFixture = `[study]
name = "docs"
repetitions = 2
warmup = "0s"
duration = "1s"

[[target]]
name = "wal-normal"
url = "sqlite:wal.db?journal_mode=WAL&synchronous=NORMAL"

[[target]]
name = "delete-full"
url = "sqlite:delete.db?journal_mode=DELETE&synchronous=FULL"

[[workload]]
name = "pgbench"
kind = "tpcb"
mode = "select-only"
scale = 1
clients = [2, 4] # docs/commands/generator.md runs it with 2 load generators: a client each at least
`

func TestDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the docs against the test servers: a few minutes")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var commands []command
	for _, f := range markdownFiles(t, root) {
		cs, problems, err := readCommands(root, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
		commands = append(commands, cs...)
	}
	if len(commands) == 0 {
		t.Fatal("no fairbench command found in README.md and docs/")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "fairbench"), "./cmd/fairbench")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	fixtures(t, root, dir, bin)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	s := &servers{t: t, urls: map[server]string{}}
	ran, skipped := 0, map[string]int{}
	for _, c := range commands {
		if c.notRun != "" {
			skipped[c.notRun]++
			continue
		}
		line, err := s.prepare(c)
		if err != nil {
			t.Errorf("%s\n%v", c, err)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err = cmd.Run()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		ran++
		if code != c.exit {
			t.Errorf("%s\nran: %s\nexit status %d, the docs say %d; output:\n%s", c, line, code, c.exit, tail(out.String(), 40))
			continue
		}
		t.Logf("ok %4.1fs %s", time.Since(start).Seconds(), c)
	}
	var reasons []string
	n := 0
	for r, k := range skipped {
		reasons = append(reasons, fmt.Sprintf("%d: %s", k, r))
		n += k
	}
	sort.Strings(reasons)
	t.Logf("%d commands of the docs run, %d not run (%s)", ran, n, strings.Join(reasons, "; "))
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingLine  = regexp.MustCompile(`^#{1,6} (.+)$`)
)

// anchor is GitHub's id of a heading: lower case, punctuation but - and _
// dropped, spaces made dashes.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every relative link of the README and docs/ names a file that exists and,
// with a #fragment, a heading of that file: pages moved or headings renamed
// leave no dead link behind.
func TestDocsLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	headings := func(p string) map[string]bool {
		if a, ok := anchors[p]; ok {
			return a
		}
		a := map[string]bool{}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
			}
			if m := headingLine.FindStringSubmatch(line); m != nil && !inBlock {
				a[anchor(strings.ReplaceAll(m[1], "`", ""))] = true
			}
		}
		anchors[p] = a
		return a
	}
	checked := 0
	for _, rel := range markdownFiles(t, root) {
		from := filepath.Join(root, rel)
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			p := from
			if file != "" {
				p = filepath.Join(filepath.Dir(from), file)
			}
			checked++
			st, err := os.Stat(p)
			if err != nil {
				t.Errorf("%s: link %s: %v", rel, target, err)
				continue
			}
			if fragment != "" && !st.IsDir() && !headings(p)[fragment] {
				t.Errorf("%s: link %s: %s has no heading #%s", rel, target, file, fragment)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found")
	}
}

// The block rules the docs rely on: ```sh lines that begin with fairbench
// (or mkdir) are commands, continuations joined; <!-- not run --> marks the
// next block only; `# exits N` is the documented status; ```text and toml
// blocks are not run; a fairbench line in a block without an info string is
// a problem.
func TestReadCommands(t *testing.T) {
	dir := t.TempDir()
	page := "# A page\n\n" +
		"```sh\nfairbench run --target sqlite:x.db \\\n    -c 2 -T 5s\nkubectl apply -f x.yaml\nmkdir -p data\n```\n\n" +
		"<!-- not run: needs a cluster -->\n```sh\nfairbench report --results postgres://far/away\n```\n\n" +
		"```sh\nfairbench run bad.toml   # exits 1\n```\n\n" +
		"```text\nfairbench run study.toml [--resume]\n```\n\n" +
		"```toml\nfairbench = 1\n```\n\n" +
		"```\nfairbench version\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "page.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	got, problems, err := readCommands(dir, "page.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []command{
		{file: "page.md", line: 4, text: "fairbench run --target sqlite:x.db -c 2 -T 5s"},
		{file: "page.md", line: 7, text: "mkdir -p data"},
		{file: "page.md", line: 12, text: "fairbench report --results postgres://far/away", notRun: "needs a cluster"},
		{file: "page.md", line: 16, text: "fairbench run bad.toml # exits 1", exit: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d commands, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("command %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "page.md:27: a block without an info string") {
		t.Errorf("problems: %q, want the plain block at line 27", problems)
	}
}
