package adapter

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// mysqlslap: one run per "Benchmark" block (a --concurrency list prints one
// block per level). mysqlslap times whole iterations, not queries, so a run
// has a throughput (clients × queries per client / average iteration time)
// and no latency distribution.

// mysqlslapTool is mysqlslap as registered, which the package's tests name.
var mysqlslapTool *Tool

func init() {
	mysqlslapTool = Register(Tool{
		Name:        "mysqlslap",
		Kind:        "mysqlslap",
		DetectOrder: 60,
		Formats:     "mysqlslap",
		Detect:      detectMysqlslap,
		Parse:       parseMysqlslap,
		ParseReader: streamed(parseMysqlslapLines),
		Build:       buildMysqlslap,
		Install:     "apt-get install mariadb-client (or mysql-client)",
		KindParams:  mysqlslapParams,
		KindInfo:    &kinds.Info{Sections: mysqlslapSections},
		FromLine:    readMysqlslapLine,
	})
}

var (
	// With --engine, mysqlslap prints "Running for engine innodb", without
	// the colon of the other lines.
	mysqlslapDetectRe = regexp.MustCompile(`(?m)^\s*Average number of seconds to run all queries: `)
	mysqlslapLine     = regexp.MustCompile(`^(Running for engine|Average number of seconds to run all queries|Minimum number of seconds to run all queries|Maximum number of seconds to run all queries|Number of clients running queries|Average number of queries per client)(?::\s*|\s+)(.*?)(?: seconds)?$`)
)

func detectMysqlslap(text string) bool { return mysqlslapDetectRe.MatchString(head(text, 64<<10)) }

func parseMysqlslap(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseMysqlslapLines)
}

func parseMysqlslapLines(l *lines) ([]*result.Run, error) {
	var runs []*result.Run
	var cur *result.Run
	var seen map[string]float64
	finish := func() error {
		if cur == nil {
			return nil
		}
		for _, k := range []string{"Average number of seconds to run all queries", "Number of clients running queries", "Average number of queries per client"} {
			if _, ok := seen[k]; !ok {
				return l.missing("\"" + k + "\" line")
			}
		}
		avg := seen["Average number of seconds to run all queries"]
		clients := seen["Number of clients running queries"]
		perClient := seen["Average number of queries per client"]
		cur.Clients = int(clients)
		cur.Params["queries_per_client"] = int64(perClient)
		cur.Duration = time.Duration(avg * float64(time.Second))
		cur.Summary.Transactions = int64(clients * perClient)
		if avg > 0 {
			cur.Summary.Throughput = clients * perClient / avg
		}
		cur.Ops = []result.Op{{Name: "query", Count: cur.Summary.Transactions}}
		cur.Env.Extra = map[string]any{"mysqlslap": map[string]any{
			"avg_seconds": avg,
			"min_seconds": seen["Minimum number of seconds to run all queries"],
			"max_seconds": seen["Maximum number of seconds to run all queries"],
		}}
		cur.Deviations = []string{"mysqlslap times whole iterations, not queries: throughput is clients × queries per client / average iteration time, and there is no latency distribution"}
		runs = append(runs, cur)
		cur = nil
		return nil
	}
	for t := range l.trimmed() {
		if t == "" {
			continue
		}
		if t == "Benchmark" {
			if err := finish(); err != nil {
				return nil, err
			}
			cur = &result.Run{Workload: "mysqlslap", Kind: "mysqlslap", Params: map[string]any{}}
			seen = map[string]float64{}
			continue
		}
		m := match(mysqlslapLine, t)
		if m == nil || cur == nil {
			return nil, l.errorf("unexpected line in mysqlslap output")
		}
		if m[1] == "Running for engine" {
			cur.Params["engine"] = m[2]
			continue
		}
		v, err := l.num(m[2], m[1])
		if err != nil {
			return nil, err
		}
		seen[m[1]] = v
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, l.missing("mysqlslap Benchmark block")
	}
	return runs, nil
}

// mysqlslapParams are a mysqlslap cell's parameters: the auto-generated SQL
// load mysqlslap runs at each concurrency (the published ARM article's
// shape), in a schema of its own.
var mysqlslapParams = []params.Spec{
	{Name: "load_type", Kind: params.String, Default: "mixed", Choices: []string{"mixed", "update", "write", "key", "read"},
		Help: "mysqlslap --auto-generate-sql-load-type"},
	{Name: "queries", Kind: params.Int, Default: int64(10000), Min: params.MinOf(1), Max: params.MaxOf(1e9),
		Help: "mysqlslap --number-of-queries: the queries of one iteration, shared by the clients"},
	{Name: "iterations", Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(10_000),
		Help: "mysqlslap --iterations: it prints the average, minimum and maximum seconds over them"},
	{Name: "engine", Kind: params.String, Default: "innodb", Help: "mysqlslap --engine of the generated table"},
	{Name: "schema", Kind: params.String, Default: "mysqlslap",
		Help: "mysqlslap --create-schema: the schema it drops, creates and drops again; never the target's database"},
}

// buildMysqlslap runs mysqlslap's auto-generated load at the cell's clients
// (--concurrency). mysqlslap runs a number of queries, not for a time: the
// run records how long they took.
func buildMysqlslap(inv Invocation) (Command, error) {
	u, err := url.Parse(inv.URL)
	if err != nil || (u.Scheme != "mysql" && u.Scheme != "mariadb") {
		return Command{}, fmt.Errorf("mysqlslap needs a mysql:// target")
	}
	p := inv.Params
	schema := p.String("schema")
	if db := strings.TrimPrefix(u.Path, "/"); schema == "" || strings.EqualFold(schema, db) {
		return Command{}, fmt.Errorf("mysqlslap drops its schema before and after the test: schema %q would be the target's database %q; name a schema of its own (schema = \"mysqlslap\")", schema, db)
	}
	var c Command
	a := []string{"mysqlslap"}
	h, port := hostPort(u)
	if h != "" {
		a = append(a, "--host="+h)
	}
	if port != "" {
		a = append(a, "--port="+port)
	}
	if u.User != nil {
		a = append(a, "--user="+u.User.Username())
		if pw, ok := u.User.Password(); ok {
			c.Env = append(c.Env, "MYSQL_PWD="+pw)
		}
	}
	tls, err := mysqlTLSOf("mysqlslap", u.Query())
	if err != nil {
		return Command{}, err
	}
	switch tls.mode {
	case "preferred", "skip-verify":
		a = append(a, "--ssl")
	case "verify":
		a = append(a, "--ssl", "--ssl-verify-server-cert")
		if tls.ca != "" {
			a = append(a, "--ssl-ca="+tls.ca)
		}
	}
	c.Argv = append(a, "--create-schema="+schema, "--auto-generate-sql",
		"--auto-generate-sql-load-type="+p.String("load_type"), "--engine="+p.String("engine"),
		"--concurrency="+strconv.Itoa(max(inv.Clients, 1)), "--number-of-queries="+strconv.FormatInt(p.Int("queries"), 10),
		"--iterations="+strconv.FormatInt(max(p.Int("iterations"), 1), 10))
	return c, nil
}

// mysqlslapSections shows what mysqlslap prints per concurrency: the
// seconds to run all queries (average, minimum and maximum over its
// iterations), the median over the completed repetitions.
func mysqlslapSections(runs []*result.Run, _ string) []kinds.Section {
	type cell struct {
		target        string
		clients       int
		avg, min, max []float64
	}
	var cells []*cell
	by := map[string]*cell{}
	for _, r := range runs {
		if r.Status != result.StatusOK {
			continue
		}
		m := toolFacts(r, "mysqlslap")
		if m == nil {
			continue
		}
		k := r.Target + "\x00" + strconv.Itoa(r.Clients)
		c := by[k]
		if c == nil {
			c = &cell{target: r.Target, clients: r.Clients}
			by[k] = c
			cells = append(cells, c)
		}
		c.avg = append(c.avg, numfmt.Number(m["avg_seconds"]))
		c.min = append(c.min, numfmt.Number(m["min_seconds"]))
		c.max = append(c.max, numfmt.Number(m["max_seconds"]))
	}
	if len(cells) == 0 {
		return nil
	}
	s := kinds.Section{Caption: "mysqlslap: seconds to run all queries per concurrency, as it prints them (average, minimum and maximum over its iterations; median of the completed repetitions):",
		Columns: []string{"target", "concurrency", "average s", "minimum s", "maximum s"},
		Right:   []bool{false, true, true, true, true}}
	for _, c := range cells {
		s.Rows = append(s.Rows, []string{c.target, strconv.Itoa(c.clients), slapSeconds(c.avg), slapSeconds(c.min), slapSeconds(c.max)})
	}
	return []kinds.Section{s}
}

// slapSeconds writes seconds with the three decimals mysqlslap prints.
func slapSeconds(xs []float64) string {
	return strconv.FormatFloat(hist.Median(xs), 'f', 3, 64)
}

// toolFacts is what a tool's parser kept in a run's environment under the
// tool's name (fio's per-direction numbers and disk_util, mysqlslap's
// seconds); nil when the run has none.
func toolFacts(r *result.Run, tool string) map[string]any {
	m, _ := r.Env.Extra[tool].(map[string]any)
	return m
}
