package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/fioparams"
	"github.com/fairbench/fairbench/internal/result"
)

// fio: --output-format=json and json+. One run per job name (the clones of
// numjobs share it), one operation per direction (read, write, trim) with the
// completion-latency (clat) histogram: exact at fio's bucket width from json+
// bins, reconstructed from clat percentiles from plain json. IOPS is the
// throughput. The run's environment keeps under "fio", per direction, IOPS,
// bandwidth (bw_bytes), I/Os, the clat and lat means and clat p50/p95/p99/p99.9
// (the ones fio printed when one entry holds the direction's I/O, as with
// group_reporting; else from the clones' merged histogram), plus disk
// utilisation; the reports' fio tables read them. The bw/iops/lat/clat logs of
// --write_*_log with --log_avg_msec=1000 become the series.

// fioTool is fio as registered, which the package's tests name.
var fioTool *Tool

func init() {
	fioTool = Register(Tool{
		Name:        "fio",
		Kind:        "fio",
		DetectOrder: 30,
		Formats:     "fio --output-format=json or json+ (bw/lat/iops logs alongside)",
		Build:       buildFio,
		Writes:      fioWrites,
		Install:     "apt-get install fio",
		Detect:      detectFio,
		Once:        regexp.MustCompile(`"fio version"\s*:`),
		Parse:       parseFio,
		IsLog:       isFioLog,
		AttachLogs:  attachFioLogs,
		JSONOutput:  true,
		KindParams:  fioparams.Specs(),
		KindInfo:    &kinds.Info{Headline: fioHeadline, Sections: fioSections},
	})
}

var fioDetectRe = regexp.MustCompile(`"fio version"\s*:\s*"fio-`)

func detectFio(text string) bool { return fioDetectRe.MatchString(head(text, 4096)) }

type fioLat struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	Stddev     float64            `json:"stddev"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
	Bins       map[string]int64   `json:"bins"`
}

type fioDir struct {
	IOBytes  int64   `json:"io_bytes"`
	BWBytes  float64 `json:"bw_bytes"`
	IOPS     float64 `json:"iops"`
	Runtime  int64   `json:"runtime"` // ms
	TotalIOs int64   `json:"total_ios"`
	Clat     *fioLat `json:"clat_ns"`
	Lat      *fioLat `json:"lat_ns"`
}

type fioJob struct {
	Name    string            `json:"jobname"`
	Error   int               `json:"error"`
	Options map[string]string `json:"job options"`
	Read    *fioDir           `json:"read"`
	Write   *fioDir           `json:"write"`
	Trim    *fioDir           `json:"trim"`
	Elapsed int64             `json:"elapsed"`
}

type fioOutput struct {
	Version     string            `json:"fio version"`
	TimestampMs int64             `json:"timestamp_ms"`
	Global      map[string]string `json:"global options"`
	Jobs        []fioJob          `json:"jobs"`
	DiskUtil    []map[string]any  `json:"disk_util"`
}

// fioParams are the job options that become run parameters (the rest are
// kept in the environment).
// numjobs is the run's clients, runtime its duration, and the directory or
// file names the target, so none of them is a parameter: runs on two disks
// must have equal parameters to be compared.
var fioParams = []string{"rw", "bs", "iodepth", "direct", "ioengine", "size", "rwmixread", "rwmixwrite"}

func parseFio(name, text string) ([]*result.Run, error) {
	// fio prints warnings ("note: ...") before the JSON when stderr is kept.
	start := strings.Index(text, "{")
	if start < 0 {
		return nil, &ParseError{File: name, Msg: "no JSON object in fio output"}
	}
	body := text[start:]
	lineAt := func(off int64) int {
		return strings.Count(text[:start], "\n") + bytes.Count([]byte(body[:min(int(off), len(body))]), []byte("\n")) + 1
	}
	dec := json.NewDecoder(strings.NewReader(body))
	var out fioOutput
	if err := dec.Decode(&out); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, &ParseError{File: name, Line: lineAt(se.Offset), Msg: "fio JSON: " + se.Error()}
		case errors.As(err, &te):
			return nil, &ParseError{File: name, Line: lineAt(te.Offset), Msg: "fio JSON: " + te.Error()}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &ParseError{File: name, Line: strings.Count(strings.TrimRight(text, "\n"), "\n") + 1, Msg: "fio JSON ends early: the output is truncated"}
		}
		return nil, &ParseError{File: name, Msg: "fio JSON: " + err.Error()}
	}
	if len(out.Jobs) == 0 {
		return nil, &ParseError{File: name, Msg: "fio output without jobs"}
	}
	var order []string
	byName := map[string][]fioJob{}
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return nil, &ParseError{File: name, Msg: fmt.Sprintf("fio job %q ended with error %d", j.Name, j.Error)}
		}
		if _, ok := byName[j.Name]; !ok {
			order = append(order, j.Name)
		}
		byName[j.Name] = append(byName[j.Name], j)
	}
	var runs []*result.Run
	for _, jn := range order {
		r, err := fioRun(name, out, byName[jn])
		if err != nil {
			return nil, err
		}
		// A value out of its domain is located at its job's name.
		var pe *ParseError
		if err := validRun(name, r); errors.As(err, &pe) {
			loc := regexp.MustCompile(`"jobname"\s*:\s*"` + regexp.QuoteMeta(jn) + `"`).FindStringIndex(text)
			if loc != nil {
				pe.Line = strings.Count(text[:loc[0]], "\n") + 1
			}
			pe.Msg = "fio job " + jn + ": " + pe.Msg
			return nil, pe
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func fioRun(name string, out fioOutput, jobs []fioJob) (*result.Run, error) {
	j0 := jobs[0]
	opts := map[string]string{}
	for k, v := range out.Global {
		opts[k] = v
	}
	for k, v := range j0.Options {
		opts[k] = v
	}
	r := &result.Run{Workload: "fio", Kind: "fio", Params: map[string]any{}, ToolVersion: out.Version}
	env := map[string]any{"job": j0.Name}
	for _, k := range fioParams {
		if v, ok := opts[k]; ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				r.Params[k] = n
			} else {
				r.Params[k] = v
			}
		}
	}
	r.Clients = fioClients(opts, len(jobs))
	if out.TimestampMs > 0 {
		r.EndedAt = time.UnixMilli(out.TimestampMs)
	}
	s := &r.Summary
	all := hist.New()
	var latSum, latN float64
	reconstructed := false
	var maxRuntime int64
	var bwTotal float64
	for _, dir := range []string{"read", "write", "trim"} {
		d, err := readFioDirection(name, dir, jobs, s)
		if err != nil {
			return nil, err
		}
		maxRuntime = max(maxRuntime, d.maxRuntime)
		reconstructed = reconstructed || d.reconstructed
		if d.ios == 0 {
			continue
		}
		if d.clatN > 0 {
			latSum += d.clatMean / 1000
			latN += float64(d.clatN)
		}
		env[dir] = d.env()
		bwTotal += d.bw
		all.Merge(d.h)
		s.Transactions += d.ios
		s.Throughput += d.iops
		r.Ops = append(r.Ops, result.Op{Name: dir, Count: d.ios, Histogram: encode(d.h)})
	}
	if len(r.Ops) == 0 {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("fio job %q did no I/O", j0.Name)}
	}
	env["bw_bytes"] = bwTotal
	if latN > 0 {
		s.LatencyMean = latSum / latN
	}
	fillFromHist(s, all)
	if len(out.DiskUtil) > 0 {
		env["disk_util"] = out.DiskUtil
	}
	env["options"] = opts
	r.Duration = time.Duration(maxRuntime) * time.Millisecond
	if !r.EndedAt.IsZero() {
		r.StartedAt = r.EndedAt.Add(-r.Duration)
	}
	r.Env.Extra = map[string]any{"fio": env}
	if reconstructed {
		r.Deviations = append(r.Deviations, reconstructedNote+" (fio's clat percentiles; use --output-format=json+ for its full histogram)")
	}
	r.Deviations = append(r.Deviations, "latency is fio's completion latency (clat), not submission + completion (lat); lat means are in the environment")
	return r, nil
}

// fioClients is the number of jobs that did the I/O: every clone is
// reported when group_reporting is off; with it, one entry stands for
// numjobs clones.
func fioClients(opts map[string]string, entries int) int {
	if nj, err := strconv.Atoi(opts["numjobs"]); err == nil && entries == 1 && opts["group_reporting"] != "" {
		return nj
	} else if err == nil && entries == 1 && nj > 1 {
		return nj
	}
	return entries
}

// fioDirection is one direction's I/O (read, write or trim) summed over a
// run's job entries.
type fioDirection struct {
	h                 *hdr.Histogram
	iops, bw          float64
	latMean, clatMean float64 // Σ mean × N, ns
	ios, clatN, latN  int64
	maxRuntime        int64 // ms
	reconstructed     bool  // h is rebuilt from printed percentiles
	printed           map[string]float64
	entries           int
}

// readFioDirection adds up direction dir of jobs; s gets the smallest
// completion latency.
func readFioDirection(name, dir string, jobs []fioJob, s *result.Summary) (*fioDirection, error) {
	t := &fioDirection{h: hist.New()}
	for _, j := range jobs {
		d := map[string]*fioDir{"read": j.Read, "write": j.Write, "trim": j.Trim}[dir]
		if d == nil || d.TotalIOs == 0 {
			continue
		}
		t.entries++
		if d.Clat != nil {
			t.printed = d.Clat.Percentile
		}
		t.iops += d.IOPS
		t.bw += d.BWBytes
		t.ios += d.TotalIOs
		t.maxRuntime = max(t.maxRuntime, d.Runtime)
		if c := d.Clat; c != nil && c.N > 0 {
			t.clatMean += c.Mean * float64(c.N)
			t.clatN += c.N
			s.LatencyMin = minNonZero(s.LatencyMin, c.Min/1000)
			if err := t.addClat(name, c); err != nil {
				return nil, err
			}
		}
		if lt := d.Lat; lt != nil && lt.N > 0 {
			t.latMean += lt.Mean * float64(lt.N)
			t.latN += lt.N
		}
	}
	return t, nil
}

// addClat adds an entry's completion latencies to the histogram: its json+
// bins, else its printed percentiles.
func (t *fioDirection) addClat(name string, c *fioLat) error {
	if len(c.Bins) > 0 {
		for k, n := range c.Bins {
			ns, err := strconv.ParseFloat(k, 64)
			if err != nil {
				return &ParseError{File: name, Msg: fmt.Sprintf("fio json+ bin %q is not a number", k)}
			}
			_ = t.h.RecordValues(usValue(ns/1000), n)
		}
	} else if len(c.Percentile) > 0 {
		var qs []quantile
		for k, v := range c.Percentile {
			q, err := strconv.ParseFloat(k, 64)
			if err != nil {
				return &ParseError{File: name, Msg: fmt.Sprintf("fio percentile %q is not a number", k)}
			}
			qs = append(qs, quantile{q, v / 1000})
		}
		t.h.Merge(histFromPercentiles(qs, c.N, c.Min/1000, c.Max/1000))
		t.reconstructed = true
	}
	return nil
}

// env is the direction's entry in the run's environment. fio's own
// percentiles hold for the whole direction when one entry (group_reporting,
// or a single job) did its I/O.
func (t *fioDirection) env() map[string]any {
	de := map[string]any{"iops": t.iops, "bw_bytes": t.bw, "total_ios": t.ios}
	if t.clatN > 0 {
		de["clat_mean_us"] = t.clatMean / float64(t.clatN) / 1000
	}
	if t.latN > 0 {
		de["lat_mean_us"] = t.latMean / float64(t.latN) / 1000
	}
	if t.h.TotalCount() > 0 {
		for _, q := range []float64{50, 95, 99, 99.9} {
			v := float64(t.h.ValueAtQuantile(q))
			if ns, ok := fioPercentile(t.printed, q); ok && t.entries == 1 {
				v = ns / 1000
			}
			de["clat_p"+strconv.FormatFloat(q, 'f', -1, 64)+"_us"] = v
		}
		de["clat_max_us"] = t.h.Max()
	}
	return de
}

// fioPercentile returns the q-th percentile fio printed (ns), keyed
// "99.000000" in its JSON.
func fioPercentile(printed map[string]float64, q float64) (float64, bool) {
	for k, v := range printed {
		if f, err := strconv.ParseFloat(k, 64); err == nil && f == q {
			return v, true
		}
	}
	return 0, false
}

func minNonZero(a, b float64) float64 {
	if a == 0 {
		return b
	}
	return math.Min(a, b)
}

// --- bw / iops / lat logs -------------------------------------------------

var (
	fioLogName = regexp.MustCompile(`_(bw|iops|lat|clat|slat)\.(\d+)\.log$`)
	fioLogLine = regexp.MustCompile(`^(\d+), (\d+), (\d+), (\d+)(?:, (\d+))?(?:, (\d+))?$`)
)

func isFioLog(name, text string) bool {
	if !fioLogName.MatchString(name) {
		return false
	}
	first, _, _ := strings.Cut(text, "\n")
	return fioLogLine.MatchString(strings.TrimSpace(first))
}

// attachFioLogs turns fio's per-second logs (--log_avg_msec=1000) into the
// run's series: per second, the IOPS of all clones and directions summed, and
// the mean latency (lat, else clat) averaged over the clones. Samples are
// placed in the second their time rounds to; two samples of one file in the
// same second (fio writes a last partial one when the job ends) are averaged.
func attachFioLogs(runs []*result.Run, logs []File) error {
	if len(runs) != 1 {
		return fmt.Errorf("%s: fio logs can only be attached to an output with one job name, this one has %d", logs[0].Name, len(runs))
	}
	r := runs[0]
	type acc struct{ sum, n float64 }
	// kind → second → per-file average, summed or averaged across files below
	perKind := map[string]map[int][]float64{}
	for _, f := range logs {
		kind := fioLogName.FindStringSubmatch(f.Name)[1]
		l := newLines(f.Name, f.Text)
		file := map[int]*acc{}
		lastMs := int64(-1)
		for t := range l.trimmed() {
			if t == "" {
				continue
			}
			m := match(fioLogLine, t)
			if m == nil {
				return l.errorf("not a fio log line")
			}
			ms, _ := l.integer(m[1], "log time")
			v, _ := l.num(m[2], "log value")
			if lastMs >= 0 && ms-lastMs < 900 && ms-lastMs > 50 {
				return l.errorf("fio log samples %d ms apart: only logs averaged per second (--log_avg_msec=1000) are supported", ms-lastMs)
			}
			lastMs = ms
			sec := int(math.Round(float64(ms) / 1000))
			if sec < 1 {
				sec = 1
			}
			a := file[sec]
			if a == nil {
				a = &acc{}
				file[sec] = a
			}
			a.sum += v
			a.n++
		}
		if perKind[kind] == nil {
			perKind[kind] = map[int][]float64{}
		}
		for sec, a := range file {
			perKind[kind][sec] = append(perKind[kind][sec], a.sum/a.n)
		}
	}
	secondsOf := func(kind string) []int {
		var out []int
		for s := range perKind[kind] {
			out = append(out, s)
		}
		sort.Ints(out)
		return out
	}
	latKind := "lat"
	if perKind[latKind] == nil {
		latKind = "clat"
	}
	base := "iops"
	if perKind[base] == nil {
		base = latKind
	}
	if perKind[base] == nil {
		return fmt.Errorf("%s: fio logs without iops or latency samples: import the iops, lat or clat logs", logs[0].Name)
	}
	var series []result.SeriesPoint
	for _, sec := range secondsOf(base) {
		pt := result.SeriesPoint{Second: sec}
		for _, v := range perKind["iops"][sec] {
			pt.Rate += v
		}
		pt.Ops = int64(math.Round(pt.Rate))
		if ls := perKind[latKind][sec]; len(ls) > 0 {
			var sum float64
			for _, v := range ls {
				sum += v
			}
			pt.Mean = sum / float64(len(ls)) / 1000 // ns → µs
		}
		series = append(series, pt)
	}
	r.Series = series
	if bw := perKind["bw"]; bw != nil {
		var kib []float64
		for _, sec := range secondsOf("bw") {
			var sum float64
			for _, v := range bw[sec] {
				sum += v
			}
			kib = append(kib, sum)
		}
		if fe, ok := r.Env.Extra["fio"].(map[string]any); ok {
			fe["bw_series_kib_s"] = kib
		}
	}
	return nil
}
