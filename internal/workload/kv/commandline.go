package kv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// memtierJSON is the run format of memtier's --json-out-file
// (kinds.Info.RunFormats): `fairbench report --format memtier-json` and the
// kv flag --json-out-file write it.
const memtierJSON = "memtier-json"

// printPercentiles is memtier's --print-percentiles: the latency
// percentiles the ALL STATS table and the JSON list.
const printPercentiles = "print-percentiles"

// defaultPercentiles are memtier 2.3's: 50, 99 and 99.9.
var defaultPercentiles = []float64{50, 99, 99.9}

var percentilesSpec = params.Spec{Name: printPercentiles, Kind: params.String, Default: "50,99,99.9",
	Help:  "the latency percentiles the table and the JSON list, comma-separated, each within 0–100 (memtier --print-percentiles)",
	Check: func(v any) error { _, err := parsePercentiles(v.(string)); return err }}

// parsePercentiles reads memtier's --print-percentiles list.
func parsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(q) || q < 0 || q > 100 {
			return nil, fmt.Errorf("%q is not a percentile: write numbers within 0–100 separated by commas, e.g. 50,99,99.9", strings.TrimSpace(f))
		}
		out = append(out, q)
	}
	if len(out) > 32 {
		return nil, errors.New("at most 32 percentiles")
	}
	return out, nil
}

// percentilesOf is the --print-percentiles a printer was given, memtier's
// default without one.
func percentilesOf(p kinds.Printing) []float64 {
	if s, ok := p[printPercentiles].(string); ok {
		if q, err := parsePercentiles(s); err == nil {
			return q
		}
	}
	return defaultPercentiles
}

// percentileColumn is memtier's column title of percentile q: "p99.9
// Latency", with up to three decimals and none that are zero.
func percentileColumn(q float64) string {
	return "p" + strconv.FormatFloat(math.Round(q*1000)/1000, 'f', -1, 64) + " Latency"
}

// CommandLine implements workload.CommandLiner: memtier's command line is
// flags, its -s/-p the server when --target is not given; redis-benchmark's
// lines are read too (rewritePeerLine).
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Tools:      []string{"memtier_benchmark", "redis-benchmark"},
		Connection: kvConnection(),
		Ignored:    peerIgnored,
		Rewrite:    rewritePeerLine,
		Targets: "Redis and Valkey (redis://HOST:PORT/DB, rediss:// with TLS, valkey://, a cluster as redis://HOST:PORT?cluster=true) " +
			"and embedded KV files (bbolt:FILE, pebble:DIR)",
		Examples: []string{
			"fairbench run --workload kv --target redis://127.0.0.1:6379/0 -t 4 -c 50 --ratio 1:10 -n 10000",
			"fairbench run --workload kv --target redis://127.0.0.1:6379/0 --test-time 60 -d 512 -R --key-pattern G:G --print-percentiles 50,99,99.9,99.99 --json-out-file run.json",
			"fairbench run --workload kv --target pebble:/tmp/kv --test-time 30 --pipeline 16 --ratio 1:0",
		},
	}
}

// rowName is memtier's name of an op type's row: Sets, Gets, Incrs, RMWs.
func rowName(op string) string {
	if op == "rmw" {
		return "RMWs"
	}
	return strings.ToUpper(op[:1]) + op[1:] + "s"
}

// ordered is a JSON object that keeps its keys in the order written, as
// memtier writes them (its importers, fairbench's among them, find the
// file by "configuration" coming first).
type ordered []field

type field struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.k, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ms is µs in memtier's JSON unit, milliseconds to three decimals.
func ms(us float64) float64 { return math.Round(us) / 1000 }

// writeMemtierJSON writes a run as memtier_benchmark 2.3 writes its
// --json-out-file: "configuration" (the kv parameters under memtier's
// names), "run information", and "ALL STATS" with Runtime and a row per op
// type, Waits and Totals: Count, Ops/sec, Hits/sec, Misses/sec, latencies
// in ms (average, accumulated, min, max), KB/sec, the per-second
// Time-Serie and the Percentile Latencies with the HdrHistogram itself.
// The run record keeps the connections, not memtier's split into threads:
// run information says one thread with every connection.
func writeMemtierJSON(w io.Writer, r *result.Run) error {
	secs := r.Duration.Seconds()
	if secs <= 0 {
		return errors.New("the run measured no time")
	}
	pcts := percentilesOf(kinds.PrintingOf(r))
	p := params.WithDefaults(kvparams.Specs(), params.Values(r.Params))
	o, _ := kvparams.Decode(p)
	dsr := "0:0"
	if o.DataSizeRange != "" {
		dsr = fmt.Sprintf("%d:%d", o.DataSizeMin, o.DataSizeMax)
	}
	testTime := 0
	if o.Requests == 0 {
		testTime = int(math.Round(secs))
	}
	config := ordered{
		{"server", r.TargetURL}, {"protocol", "redis"}, {"clients", r.Clients}, {"threads", 1},
		{"test_time", testTime}, {"requests", o.Requests}, {"ratio", o.Ratio}, {"pipeline", o.Pipeline},
		{"pipeline_mode", o.PipelineMode}, // fairbench's: memtier's own pipeline is always a window
		{"data_size", o.DataSize}, {"random_data", strconv.FormatBool(o.RandomData)}, {"data_size_range", dsr},
		{"key_prefix", o.KeyPrefix}, {"key_minimum", o.KeyMinimum}, {"key_maximum", o.KeyMaximum},
		{"key_pattern", o.KeyPattern}, {"key_stddev", o.KeyStddev}, {"key_median", o.KeyMedian},
		{"key_zipf_exp", o.KeyZipfExp}, {"distinct_client_seed", strconv.FormatBool(o.DistinctClientSeed)},
		{"tool", "fairbench"},
	}
	info := ordered{{"Threads", 1}, {"Connections per thread", r.Clients}}
	if o.Requests > 0 {
		info = append(info, field{"Requests per client", o.Requests})
	} else {
		info = append(info, field{"Seconds", testTime})
	}
	info = append(info, field{"Format version", 2})
	hits, misses := r.Summary.Extra["hits"], r.Summary.Extra["misses"]
	start := r.StartedAt.UnixMilli()
	stats := ordered{{"Runtime", ordered{{"Start time", start}, {"Finish time", start + r.Duration.Milliseconds()},
		{"Total duration", r.Duration.Milliseconds()}, {"Time unit", "MILLISECONDS"},
		{"Interrupted", strconv.FormatBool(r.Status == result.StatusInterrupted)}}}}
	total := hist.New()
	var count, bytesAll, connErrs int64
	var acc float64
	for _, op := range r.Ops {
		h, err := hist.Decode(op.Histogram)
		if err != nil || h == nil {
			h = hist.New()
		}
		total.Merge(h)
		count += op.Count
		bytesAll += op.Bytes
		acc += h.Mean() * float64(h.TotalCount())
		connErrs += op.Errors[result.ErrConnection]
		hps, mps := 0.0, 0.0
		if op.Name == "get" || op.Name == "rmw" {
			hps, mps = hits/secs, misses/secs
		}
		stats = append(stats, field{rowName(op.Name), memtierRow(op.Count, h, h.Mean()*float64(h.TotalCount()), op.Bytes,
			op.Errors[result.ErrConnection], hps, mps, secs, pcts, opSeries(r.Series, op.Name, pcts))})
	}
	stats = append(stats, field{"Waits", memtierRow(0, hist.New(), 0, 0, 0, 0, 0, secs, pcts, nil)})
	stats = append(stats, field{"Totals", memtierRow(count, total, acc, bytesAll, connErrs, hits/secs, misses/secs, secs, pcts, opSeries(r.Series, "", pcts))})
	doc := ordered{{"configuration", config}, {"run information", info}, {"ALL STATS", stats}}
	b, err := json.MarshalIndent(doc, "", "\t")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// memtierRow is one row of ALL STATS; accUs is the latencies' sum in µs.
func memtierRow(n int64, h *hdr.Histogram, accUs float64, bytes, connErrs int64, hitsPerSec, missesPerSec, secs float64,
	pcts []float64, series ordered) ordered {
	avg, lo, hi := 0.0, 0.0, 0.0
	if n > 0 {
		avg, lo, hi = ms(accUs/float64(n)), ms(float64(h.Min())), ms(float64(h.Max()))
	}
	kbs := math.Round(float64(bytes)/1024/secs*100) / 100
	quantiles := ordered{}
	for _, q := range pcts {
		quantiles = append(quantiles, field{fmt.Sprintf("p%.2f", q), ms(float64(h.ValueAtQuantile(q)))})
	}
	enc, _ := hist.Encode(h)
	quantiles = append(quantiles, field{"Histogram log format", ordered{{"Compressed Histogram", string(enc)}}})
	if series == nil {
		series = ordered{}
	}
	return ordered{
		{"Count", n}, {"Ops/sec", math.Round(float64(n)/secs*100) / 100},
		{"Hits/sec", math.Round(hitsPerSec*100) / 100}, {"Misses/sec", math.Round(missesPerSec*100) / 100},
		{"Connection Errors/sec", math.Round(float64(connErrs)/secs*100) / 100}, {"Connection Errors", connErrs},
		{"Latency", avg}, {"Average Latency", avg}, {"Accumulated Latency", int64(accUs / 1000)},
		{"Min Latency", lo}, {"Max Latency", hi}, {"KB/sec", kbs},
		{"Time-Serie", series}, {"Percentile Latencies", quantiles},
	}
}

// opSeries is a row's Time-Serie: per second of the run (memtier's "0" is
// the first), its count and latencies from the series' interval histograms
// of op ("" for all ops).
func opSeries(series []result.SeriesPoint, op string, pcts []float64) ordered {
	out := ordered{}
	for _, pt := range series {
		if pt.Missed || pt.Second < 1 {
			continue
		}
		h := hist.New()
		var sum float64
		for _, iv := range pt.Hists {
			if op != "" && iv.Name != op {
				continue
			}
			if x, err := hist.Decode([]byte(iv.Histogram)); err == nil && x != nil {
				h.Merge(x)
			}
			sum += iv.SumUs
		}
		sec := ordered{{"Count", h.TotalCount()}}
		if n := h.TotalCount(); n > 0 {
			sec = append(sec, field{"Average Latency", ms(sum / float64(n))}, field{"Accumulated Latency", int64(sum / 1000)},
				field{"Min Latency", ms(float64(h.Min()))}, field{"Max Latency", ms(float64(h.Max()))})
			for _, q := range pcts {
				sec = append(sec, field{fmt.Sprintf("p%.2f", q), ms(float64(h.ValueAtQuantile(q)))})
			}
		}
		out = append(out, field{strconv.Itoa(pt.Second - 1), sec})
	}
	return out
}
