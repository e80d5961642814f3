package examples_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/faultproxy"
)

// The redis-benchmark cloud example runs end to end on the test Redis,
// shortened: the real redis-benchmark's SET and GET at pipeline 1 and 4
// connections for 1 s, then 12 s of fairbench's sustained SET load at 50
// connections. Each configuration is the same server behind a loopback
// proxy of its own: in its sustained run the standard one delays every
// chunk by 2 ms throughout, the burstable one by 2 ms and, from 6 s on, by
// 40 ms, as a cloud instance is throttled once its CPU credits are spent.
// The report shows the cumulative latency shares (≤ 1/5/50 ms and max) and
// the Level shifts table with the burst and the steady state as rows. The tables are
// compared with testdata/golden/redis-cloud-burst*.{txt,md}.
func TestRedisCloudBurstExampleRuns(t *testing.T) {
	st := parseExample(t, "redis-cloud-burst.toml")
	if len(st.Targets) != 2 || len(st.Workloads) != 2 {
		t.Fatalf("want a standard and a burstable configuration and two workloads, got %d targets and %d workloads", len(st.Targets), len(st.Workloads))
	}
	server := testenv.RedisSpareDB(t, testenv.RedisURL(t))
	standardProxy, standardURL := faultproxy.InFront(t, server)
	burstableProxy, burstableURL := faultproxy.InFront(t, server)
	for _, tg := range st.Targets {
		switch tg.Name {
		case "standard":
			tg.URL = standardURL
		case "burstable":
			tg.URL = burstableURL
		default:
			t.Fatalf("unexpected target %q", tg.Name)
		}
		tg.ServerView = study.ServerViewOff // its rows vary from run to run (managed_platforms_test.go)
	}
	st.Repetitions, st.Warmup, st.Duration, st.Cooldown = 1, 0, time.Second, 0
	prefix := testenv.RedisKeyPrefix(t)
	t.Cleanup(func() { deleteKeys(t, server, prefix) })
	var sustained string
	for _, w := range st.Workloads {
		w.Warmup, w.Duration, w.Cooldown = nil, nil, nil
		switch {
		case w.Tool == "redis-benchmark":
			w.Clients = []study.ClientLevel{{N: 4}}
			w.Params["pipeline"] = []any{int64(1)}
			w.Params["key_maximum"] = []any{int64(999)}
		case w.Kind == "kv":
			// The study's 50 connections: the throttled rate is smooth
			// enough for two flat levels, to its last partial second.
			sustained = w.Name
			twelve := 12 * time.Second
			w.Duration = &twelve
			w.Params["key_maximum"] = []any{int64(999)}
			w.Params["key_prefix"] = []any{prefix}
		default:
			t.Fatalf("unexpected workload %s (tool %q)", w.Name, w.Tool)
		}
	}
	missing := dropMissingTools(t, st)
	// The proxies' delays bound both targets' sustained rates, rather than
	// the CPU of a busy test machine, which scatters a closed loop's rate
	// enough to show two levels where nothing changed (CI saw the
	// unthrottled standard run at 31k ops/s for 5 s, then 48k): 2 ms per
	// chunk while the credits last, then 40 ms; the standard one's last.
	credits := &creditSpender{proxy: burstableProxy, cell: "target=burstable workload=" + sustained + " ", after: 6,
		burst: 2 * time.Millisecond, steady: 40 * time.Millisecond}
	defer credits.stop()
	steady := &creditSpender{proxy: standardProxy, cell: "target=standard workload=" + sustained + " ", after: math.Inf(1),
		burst: 2 * time.Millisecond}
	defer steady.stop()
	path := runIntoStore(t, st, runner.Options{Progress: io.MultiWriter(credits, steady)})
	text, md, runs := reports(t, path, "standard")
	defer func() { // shown with -v or on a failure
		for _, r := range runs {
			if r.Workload == sustained {
				var rates []string
				for _, p := range r.Series {
					rates = append(rates, strconv.FormatFloat(p.Rate, 'f', 0, 64))
				}
				t.Logf("%s's per-second rates: %s", r.Target, strings.Join(rates, " "))
			}
		}
	}()
	checkGolden(t, "redis-cloud-burst", missing, text, md)

	shares := captionedRows(t, md, "Cumulative latency")
	if want := "target|clients|≤ 1 ms %|≤ 5 ms %|≤ 50 ms %|max ms"; strings.Join(shares[0], "|") != want {
		t.Errorf("cumulative latency columns %v, want %s", shares[0], want)
	}
	shifts := captionedRows(t, md, "Level shifts")
	var levels []string
	for _, row := range shifts[1:] {
		if row[1] != "burstable" {
			t.Errorf("a level shift on %s, which nothing throttled: %v", row[1], row)
		}
		levels = append(levels, strings.SplitN(row[4], ",", 2)[0])
	}
	if strings.Join(levels, "|") != "burst|steady|whole run (blends both)" {
		t.Errorf("level shift rows %v, want the burst, the steady state and the whole run", levels)
	}
}

// creditSpender reads the runner's progress and, in the cell it names,
// delays every chunk the proxy forwards a little, and from the given second
// of the measured phase much more, until the next cell starts: a burstable
// instance's throttling once its credits are spent.
type creditSpender struct {
	proxy *faultproxy.Proxy
	cell  string
	after float64 // seconds into the measured phase
	// burst and steady are the delays per chunk before and after.
	burst, steady time.Duration

	mu     sync.Mutex
	line   bytes.Buffer
	inCell bool
}

// tick is the runner's per-second progress line: "  progress: 4.0 s, …".
var tick = regexp.MustCompile(`^  progress: ([\d.]+) s,`)

func (c *creditSpender) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.line.Write(p)
	for {
		i := bytes.IndexByte(c.line.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		l := string(c.line.Next(i + 1))
		if strings.HasPrefix(l, "[") && strings.Contains(l, "target=") {
			// A new cell: the credits of the named one are there at its
			// start; the other cells run at full speed.
			c.inCell = strings.Contains(l, c.cell)
			c.proxy.SetLatency(0)
			if c.inCell {
				c.proxy.SetLatency(c.burst)
			}
			continue
		}
		if m := tick.FindStringSubmatch(l); m != nil && c.inCell {
			if s, err := strconv.ParseFloat(m[1], 64); err == nil && s >= c.after {
				c.proxy.SetLatency(c.steady)
			}
		}
	}
}

func (c *creditSpender) stop() { c.proxy.SetLatency(0) }

// deleteKeys deletes the keys under prefix in the database url names (the
// test's key prefix is cleaned up in database 0 only).
func deleteKeys(t *testing.T, url, prefix string) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		t.Error(err)
		return
	}
	c := goredis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	it := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for it.Next(ctx) {
		if err := c.Unlink(ctx, it.Val()).Err(); err != nil {
			t.Error(err)
			return
		}
	}
	if err := it.Err(); err != nil {
		t.Error(err)
	}
}
