package adapter

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/params/oltpparams"
	"github.com/fairbench/fairbench/internal/result"
)

// sysbench 1.0: the text of `sysbench oltp_* run`, with --report-interval lines
// (the series) and --histogram (an exact distribution at sysbench's bucket
// width). sysbench does not print the test's name, so the mode (read_write,
// point_select, ...) comes from the import flags.

// sysbenchTool is sysbench as registered, which the package's tests name.
var sysbenchTool *Tool

func init() {
	sysbenchTool = Register(Tool{
		Name:        "sysbench",
		Kind:        "oltp",
		DetectOrder: 20,
		Formats:     "sysbench 1.0 oltp_* (with --report-interval and --histogram)",
		Build:       buildSysbench,
		Install:     "apt-get install sysbench",
		Detect:      detectSysbench,
		Once:        regexp.MustCompile(`(?m)^SQL statistics:`),
		Parse:       parseSysbench,
		ParseReader: streamed(parseSysbenchLines),
		ImportFlags: []ImportFlag{
			paramFlag("mode", "", oltpparams.Specs(), oltpparams.Mode, "the test sysbench ran (oltp_<mode>), which its output does not print: read_write, read_only, point_select, ..."),
			paramFlag("protocol", "M", oltpparams.Specs(), oltpparams.QueryMode, "query mode: simple, extended or prepared (sysbench --db-ps-mode=disable is simple)"),
		},
		Complete: func(r *result.Run) error {
			if _, ok := r.Params[oltpparams.Mode]; !ok {
				return errors.New("sysbench does not print which test ran: give --mode (read_write, read_only, point_select, ...)")
			}
			return nil
		},
	})
}

var (
	sysbenchHeader   = regexp.MustCompile(`(?m)^sysbench (\d+\.\d+\.\d+)(.*)$`)
	sysbenchInterval = regexp.MustCompile(`^\[ (\d+)s \] thds: (\d+) tps: ([\d.]+) qps: ([\d.]+) \(r/w/o: ([\d.]+)/([\d.]+)/([\d.]+)\) lat \(ms,([\d.]+)%\): ([\d.]+) err/s: ([\d.]+) reconn/s: ([\d.]+)$`)
	sysbenchHistRow  = regexp.MustCompile(`^\s+([\d.]+) \|\**\s+(\d+)$`)
	sysbenchStat     = regexp.MustCompile(`^\s+([a-z][a-z0-9 ()/]*[a-z)]|\d+th percentile):\s+(\S+)(?:\s+\(([\d.]+) per sec\.\))?$`)
	sysbenchAvgDev   = regexp.MustCompile(`^([\d.]+)/([\d.]+)$`)
)

func detectSysbench(text string) bool {
	h := head(text, 64<<10)
	return sysbenchHeader.MatchString(h) && (strings.Contains(h, "Running the test with following options:") || strings.Contains(h, "SQL statistics:"))
}

func parseSysbench(name, text string) ([]*result.Run, error) {
	return checked(newLines(name, text), parseSysbenchLines)
}

func parseSysbenchLines(l *lines) ([]*result.Run, error) {
	name := l.file
	r := &result.Run{Workload: "sysbench", Kind: "oltp", Params: map[string]any{}}
	s := &r.Summary
	env := map[string]any{}
	var (
		section  string
		buckets  []bucket
		inHist   bool
		pctLabel string
		pctValue float64
		prevSec  int
		seen     = map[string]bool{}
	)
	for {
		line, ok := l.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" {
			inHist = false
			continue
		}
		if m := match(sysbenchHeader, t); m != nil && r.ToolVersion == "" {
			r.ToolVersion = "sysbench " + m[1]
			continue
		}
		switch {
		case t == "Running the test with following options:",
			strings.HasPrefix(t, "Initializing random number generator"),
			strings.HasPrefix(t, "Report intermediate results every"),
			t == "Initializing worker threads...", t == "Threads started!":
			continue
		case strings.HasPrefix(t, "Number of threads: "):
			n, err := l.integer(strings.TrimPrefix(t, "Number of threads: "), "threads")
			if err != nil {
				return nil, err
			}
			r.Clients = int(n)
			continue
		case strings.HasPrefix(t, "Target transaction rate: "):
			v := strings.TrimSuffix(strings.TrimPrefix(t, "Target transaction rate: "), " per second")
			rate, err := l.num(v, "target rate")
			if err != nil {
				return nil, err
			}
			s.TargetRate = rate
			continue
		case strings.HasPrefix(t, "FATAL:"):
			return nil, l.errorf("sysbench failed: %s", t)
		case strings.HasPrefix(t, "Latency histogram"):
			inHist = true
			continue
		case inHist && strings.HasPrefix(t, "value "):
			continue
		}
		if strings.HasPrefix(t, "[ ") {
			m := match(sysbenchInterval, t)
			if m == nil {
				return nil, l.errorf("unreadable sysbench --report-interval line")
			}
			sec, _ := l.integer(m[1], "interval time")
			tps, _ := l.num(m[3], "interval tps")
			lat, _ := l.num(m[9], "interval latency")
			errps, _ := l.num(m[10], "interval errors")
			win := float64(int(sec) - prevSec)
			prevSec = int(sec)
			pt := result.SeriesPoint{Second: int(sec), Rate: tps, Ops: int64(math.Round(tps * win)), Errors: int64(math.Round(errps * win))}
			switch m[8] {
			case "95":
				pt.P95 = lat * 1000
			case "99":
				pt.P99 = lat * 1000
			case "50":
				pt.P50 = lat * 1000
			}
			r.Series = append(r.Series, pt)
			continue
		}
		if inHist {
			m := match(sysbenchHistRow, line)
			if m == nil {
				return nil, l.errorf("unreadable sysbench histogram row")
			}
			v, _ := l.num(m[1], "histogram value")
			n, _ := l.integer(m[2], "histogram count")
			buckets = append(buckets, bucket{v * 1000, n})
			continue
		}
		if strings.HasSuffix(t, ":") && !strings.HasPrefix(line, "        ") {
			section = strings.TrimSuffix(t, ":")
			switch section {
			case "SQL statistics", "queries performed", "General statistics", "Latency (ms)", "Threads fairness":
				seen[section] = true
				continue
			}
			return nil, l.errorf("unknown sysbench section %q", section)
		}
		m := match(sysbenchStat, line)
		if m == nil {
			return nil, l.errorf("unexpected line in sysbench output")
		}
		key, val := m[1], m[2]
		if section == "queries performed" && !strings.HasPrefix(line, "        ") {
			section = "SQL statistics" // back from the nested block
		}
		switch {
		case section == "queries performed":
			n, err := l.integer(val, "queries "+key)
			if err != nil {
				return nil, err
			}
			env["queries_"+key] = n
		case section == "SQL statistics":
			n, err := l.integer(val, key)
			if err != nil {
				return nil, err
			}
			switch key {
			case "transactions":
				s.Transactions = n
				if m[3] == "" {
					return nil, l.errorf("transactions line without its rate")
				}
				s.Throughput, _ = l.num(m[3], "transactions per second")
				seen["transactions"] = true
			case "queries":
				env["queries"] = n
				if m[3] != "" {
					env["queries_per_sec"], _ = l.num(m[3], "queries per second")
				}
			case "ignored errors":
				// sysbench restarts the transaction after an ignored error
				// (--mysql-ignore-errors): a retry in pgbench's terms.
				s.Retries = n
			case "reconnects":
				env["reconnects"] = n
			default:
				return nil, l.errorf("unknown SQL statistics line %q", key)
			}
		case section == "General statistics":
			switch key {
			case "total time":
				secs, err := l.num(strings.TrimSuffix(val, "s"), key)
				if err != nil {
					return nil, err
				}
				r.Duration = time.Duration(secs * float64(time.Second))
				seen["total time"] = true
			case "total number of events":
				n, err := l.integer(val, key)
				if err != nil {
					return nil, err
				}
				env["events"] = n
			default:
				return nil, l.errorf("unknown general statistics line %q", key)
			}
		case section == "Latency (ms)":
			v, err := l.num(val, "latency "+key)
			if err != nil {
				return nil, err
			}
			switch {
			case key == "min":
				s.LatencyMin = v * 1000
			case key == "avg":
				s.LatencyMean = v * 1000
				seen["avg"] = true
			case key == "max":
				s.Max = v * 1000
			case key == "sum":
			case strings.HasSuffix(key, "th percentile"):
				pctLabel, pctValue = strings.TrimSuffix(key, "th percentile"), v*1000
			default:
				return nil, l.errorf("unknown latency line %q", key)
			}
		case section == "Threads fairness":
			mm := match(sysbenchAvgDev, val)
			if mm == nil {
				return nil, l.errorf("unreadable threads fairness line")
			}
			env["fairness "+key], _ = l.num(mm[2], key)
			seen["fairness "+strings.Fields(key + " ")[0]] = true
		default:
			return nil, l.errorf("unexpected line outside any sysbench section")
		}
	}
	if !seen["SQL statistics"] {
		if seen["General statistics"] {
			return nil, &ParseError{File: name, Msg: "a sysbench output without SQL statistics: only the oltp_* tests are supported"}
		}
		return nil, l.missing("SQL statistics")
	}
	// The two lines of Threads fairness end every sysbench output.
	for _, need := range []string{"transactions", "total time", "avg", "Threads fairness", "fairness events", "fairness execution"} {
		if !seen[need] {
			return nil, l.missing("sysbench " + need)
		}
	}
	var h *hdr.Histogram
	if len(buckets) > 0 {
		h = histFromBuckets(buckets)
		if h.TotalCount() != s.Transactions {
			// The histogram counts events; with oltp_* an event is a transaction.
			env["histogram_events"] = h.TotalCount()
		}
		mx := s.Max
		fillFromHist(s, h)
		s.Max = mx // sysbench's own maximum is exact; the bucket is rounded
	} else {
		r.Deviations = append(r.Deviations, "no latency distribution: sysbench prints one percentile without --histogram")
	}
	switch pctLabel {
	case "95":
		s.P95 = pctValue
	case "99":
		s.P99 = pctValue
	case "50":
		s.P50 = pctValue
	}
	if pctLabel != "" {
		env["percentile"] = pctLabel
	}
	r.Ops = []result.Op{{Name: "transaction", Count: s.Transactions, Histogram: encode(h)}}
	r.Env.Extra = map[string]any{"sysbench": env}
	return []*result.Run{r}, nil
}
