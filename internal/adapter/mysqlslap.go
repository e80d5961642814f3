package adapter

import (
	"regexp"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// mysqlslap: one run per "Benchmark" block (a --concurrency list prints one
// block per level). mysqlslap times whole iterations, not queries, so a run
// has a throughput (clients × queries per client / average iteration time)
// and no latency distribution.

var mysqlslapTool = &Tool{
	Name:   "mysqlslap",
	Kind:   "mysqlslap",
	Detect: detectMysqlslap,
	Parse:  parseMysqlslap,
}

var (
	mysqlslapDetectRe = regexp.MustCompile(`(?m)^\s*Average number of seconds to run all queries: `)
	mysqlslapLine     = regexp.MustCompile(`^(Running for engine|Average number of seconds to run all queries|Minimum number of seconds to run all queries|Maximum number of seconds to run all queries|Number of clients running queries|Average number of queries per client):\s*(.*?)(?: seconds)?$`)
)

func detectMysqlslap(text string) bool { return mysqlslapDetectRe.MatchString(head(text, 64<<10)) }

func parseMysqlslap(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseMysqlslapLines)
}

func parseMysqlslapLines(l *lines) ([]*result.Run, error) {
	name, text := l.file, l.text
	_, _ = name, text
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
