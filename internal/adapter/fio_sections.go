package adapter

import (
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// fio runs are shown per direction the way disk studies publish them: read
// and write IOPS and bandwidth, completion latency mean / p99 / p99.9, and
// with several targets, IOPS and bandwidth as ratios to the baseline. The
// report renders these sections in its terminal, Markdown and HTML formats.

// fioHeadline is what a disk study reads first: I/Os per second over every
// direction, fio's IOPS summed (the run's throughput), not "tps" beside
// another scenario's transactions.
var fioHeadline = result.Headline{Name: "IOPS", Unit: "IOPS", HigherIsBetter: true, Field: result.FieldRequests}

// fioDirections are fio's I/O directions in the order fio prints them.
var fioDirections = []string{"read", "write", "trim"}

// fioIO is one I/O direction of a fio cell over its completed repetitions,
// the numbers disk studies publish, each the median over the repetitions of
// what fio printed for the run (like every headline number in a report): a
// single repetition shows fio's own numbers. Latency is completion latency (clat).
type fioIO struct {
	N         int     // repetitions that did I/O in this direction
	IOPS      float64 // median over those repetitions
	Bandwidth float64 // bytes per second
	ClatMean  float64 // µs; 0 when fio printed no clat
	// P95, P99 and P999 are µs: fio's printed percentiles where one job
	// entry held the direction's I/O (group_reporting), else the clones'
	// merged histogram's. HasPercentiles is false when no repetition has them.
	P95, P99, P999 float64
	HasPercentiles bool
}

// fioCell is the runs of one cell (study, workload, parameters, target and
// clients) split by direction, with its IOPS and bandwidth relative to the
// baseline's cell of the same study, workload, parameters and clients.
type fioCell struct {
	Target  string
	Clients int
	N       int // completed runs
	key     string
	IO      map[string]*fioIO // by direction; only the directions with I/O
	// Base is the cell the ratios divide by: the baseline target's, or with
	// no baseline named, the first target's with completed runs. It is nil
	// when there is none, and the cell itself for the baseline.
	Base *fioCell
	// IOPSRatio and BandwidthRatio are this cell's medians divided by Base's,
	// by direction; NaN where either side did no I/O in that direction.
	IOPSRatio, BandwidthRatio map[string]float64
}

// fioCells groups runs into cells in the order the cells first appear (a
// report passes its rows' runs in row order, incomplete ones included, so a
// cell without a completed run still gets its row of dashes). The
// per-direction numbers are the ones Parse keeps in each run's environment
// (env.fio.read: iops, bw_bytes, total_ios, clat_mean_us, clat_p99_us,
// clat_p99.9_us), which imported runs and runs of a tool = "fio" study cell
// both carry. With baseline "", each cell's ratios are against the first
// target (in that order) with completed runs in the same cell.
func fioCells(runs []*result.Run, baseline string) []*fioCell {
	var cells []*fioCell
	byCell := map[string]*fioCell{}
	okRuns := map[*fioCell][]*result.Run{}
	for _, r := range runs {
		k := strings.Join([]string{r.StudyName, r.Workload, r.Kind, params.Values(r.Params).Canonical(), strconv.Itoa(r.Clients)}, "\x00")
		c := byCell[k+"\x00"+r.Target]
		if c == nil {
			c = &fioCell{Target: r.Target, Clients: r.Clients, key: k}
			byCell[k+"\x00"+r.Target] = c
			cells = append(cells, c)
		}
		if r.Status == result.StatusOK {
			c.N++
			okRuns[c] = append(okRuns[c], r)
		}
	}
	first := map[string]*fioCell{}
	for _, c := range cells {
		c.IO = fioDirectionsIO(okRuns[c])
		if c.N == 0 {
			continue
		}
		if baseline == "" && first[c.key] == nil || c.Target == baseline {
			first[c.key] = c
		}
	}
	for _, c := range cells {
		b := first[c.key]
		if b == nil || c.N == 0 {
			continue
		}
		c.Base = b
		c.IOPSRatio, c.BandwidthRatio = map[string]float64{}, map[string]float64{}
		for _, d := range fioDirections {
			x, y := c.IO[d], b.IO[d]
			if x == nil && y == nil {
				continue
			}
			c.IOPSRatio[d], c.BandwidthRatio[d] = math.NaN(), math.NaN()
			if x != nil && y != nil {
				c.IOPSRatio[d] = fioRatio(x.IOPS, y.IOPS)
				c.BandwidthRatio[d] = fioRatio(x.Bandwidth, y.Bandwidth)
			}
		}
	}
	return cells
}

func fioRatio(x, base float64) float64 {
	if base <= 0 {
		return math.NaN()
	}
	return x / base
}

func fioDirectionsIO(runs []*result.Run) map[string]*fioIO {
	out := map[string]*fioIO{}
	for _, d := range fioDirections {
		var iops, bw, mean, p95, p99, p999 []float64
		for _, r := range runs {
			fe, _ := r.Env.Extra["fio"].(map[string]any)
			de, _ := fe[d].(map[string]any)
			if de == nil || numfmt.Number(de["total_ios"]) <= 0 {
				continue
			}
			iops = append(iops, numfmt.Number(de["iops"]))
			bw = append(bw, numfmt.Number(de["bw_bytes"]))
			if v, ok := de["clat_mean_us"]; ok {
				mean = append(mean, numfmt.Number(v))
			}
			if v, ok := de["clat_p95_us"]; ok {
				p95 = append(p95, numfmt.Number(v))
			}
			if v, ok := de["clat_p99_us"]; ok {
				p99 = append(p99, numfmt.Number(v))
			}
			if v, ok := de["clat_p99.9_us"]; ok {
				p999 = append(p999, numfmt.Number(v))
			}
		}
		if len(iops) == 0 {
			continue
		}
		out[d] = &fioIO{N: len(iops), IOPS: hist.Median(iops), Bandwidth: hist.Median(bw), ClatMean: hist.Median(mean),
			P95: hist.Median(p95), P99: hist.Median(p99), P999: hist.Median(p999), HasPercentiles: len(p99) > 0}
	}
	return out
}

// fioDirectionsOf returns the directions any of cells did I/O in, in fio's order.
func fioDirectionsOf(cells []*fioCell) []string {
	var out []string
	for _, d := range fioDirections {
		for _, c := range cells {
			if c.IO[d] != nil {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// fioSections is the fio kind's report sections for the runs of one report
// section (one study, workload and parameter set): IOPS and bandwidth,
// completion latency, and with two targets or more the ratios to the
// baseline. A named baseline without a completed run there leaves a note
// instead of the ratios.
func fioSections(runs []*result.Run, baseline string) []kinds.Section {
	cells := fioCells(runs, baseline)
	dirs := fioDirectionsOf(cells)
	if len(dirs) == 0 {
		return nil
	}
	right := func(textCols, n int) []bool {
		r := make([]bool, n)
		for i := textCols; i < n; i++ {
			r[i] = true
		}
		return r
	}
	key := []string{"target", "clients"}
	keyOf := func(c *fioCell) []string { return []string{c.Target, strconv.Itoa(c.Clients)} }
	// dirCols appends per direction the columns of f, or "–" where the cell
	// has no completed run or did no I/O that way.
	dirCols := func(row []string, c *fioCell, n int, f func(io *fioIO) []string) []string {
		for _, d := range dirs {
			io := c.IO[d]
			if io == nil {
				for range n {
					row = append(row, fioNone)
				}
				continue
			}
			row = append(row, f(io)...)
		}
		return row
	}

	rates := kinds.Section{Caption: "IOPS and bandwidth (MiB/s) per direction, median of the completed repetitions:",
		Columns: append(append([]string{}, key...), "n")}
	lat := kinds.Section{Caption: "Completion latency (clat) per direction, ms: mean, p95, p99 and p99.9 as fio printed them per repetition, median of the completed repetitions:",
		Columns: append([]string{}, key...)}
	for _, d := range dirs {
		rates.Columns = append(rates.Columns, d+" IOPS")
	}
	for _, d := range dirs {
		rates.Columns = append(rates.Columns, d+" MiB/s")
		lat.Columns = append(lat.Columns, d+" mean", d+" p95", d+" p99", d+" p99.9")
	}
	for _, c := range cells {
		row := append(keyOf(c), strconv.Itoa(c.N))
		row = dirCols(row, c, 1, func(io *fioIO) []string { return []string{fioCount(io.IOPS)} })
		row = dirCols(row, c, 1, func(io *fioIO) []string { return []string{numfmt.Rate(io.Bandwidth / (1 << 20))} })
		rates.Rows = append(rates.Rows, row)
		lat.Rows = append(lat.Rows, dirCols(keyOf(c), c, 4, func(io *fioIO) []string {
			mean, p95, p99, p999 := fioNone, fioNone, fioNone, fioNone
			if io.ClatMean > 0 {
				mean = fioMs(io.ClatMean)
			}
			if io.HasPercentiles {
				p95, p99, p999 = fioMs(io.P95), fioMs(io.P99), fioMs(io.P999)
			}
			return []string{mean, p95, p99, p999}
		}))
	}
	rates.Right, lat.Right = right(1, len(rates.Columns)), right(1, len(lat.Columns))
	ratios, note := fioRatioSections(cells, dirs, baseline, keyOf, right)
	lat.Note = note
	out := append([]kinds.Section{rates, lat}, ratios...)
	if util, ok := fioUtilSection(runs); ok {
		out = append(out, util)
	}
	return out
}

// fioRatioSections is the ratio table to the baseline, with two targets or
// more; note says why there is none where the named baseline has no
// completed run.
func fioRatioSections(cells []*fioCell, dirs []string, baseline string, keyOf func(*fioCell) []string, right func(int, int) []bool) (ratioTables []kinds.Section, note string) {
	key := []string{"target", "clients"}
	targets := map[string]bool{}
	for _, c := range cells {
		targets[c.Target] = true
	}
	if len(targets) < 2 {
		return nil, ""
	}
	var compared []*fioCell
	bases := map[string]bool{}
	for _, c := range cells {
		if c.Base != nil && c.Base != c {
			compared = append(compared, c)
			bases[c.Base.Target] = true
		}
	}
	if len(compared) == 0 {
		if baseline != "" {
			return nil, "No ratios: " + baseline + " has no completed run with these parameters."
		}
		return nil, ""
	}
	ratios := kinds.Section{Columns: append([]string{}, key...)}
	textCols := 1
	if len(bases) == 1 {
		b := compared[0].Base.Target
		ratios.Caption = "Ratio to " + b + ", ×: median IOPS and bandwidth divided by " + b + "'s at the same clients:"
	} else {
		// With no baseline named, a cell the first target lacks is compared
		// against the first target that has it.
		ratios.Caption = "Ratio to the first target with the same clients, ×: median IOPS and bandwidth divided by its:"
		ratios.Columns = []string{"target", "relative to", "clients"}
		textCols = 2
	}
	for _, d := range dirs {
		ratios.Columns = append(ratios.Columns, d+" IOPS")
	}
	for _, d := range dirs {
		ratios.Columns = append(ratios.Columns, d+" MiB/s")
	}
	for _, c := range compared {
		row := keyOf(c)
		if len(bases) > 1 {
			row = []string{c.Target, c.Base.Target, strconv.Itoa(c.Clients)}
		}
		for _, m := range []map[string]float64{c.IOPSRatio, c.BandwidthRatio} {
			for _, d := range dirs {
				row = append(row, fioTimes(m[d]))
			}
		}
		ratios.Rows = append(ratios.Rows, row)
	}
	ratios.Right = right(textCols, len(ratios.Columns))
	return []kinds.Section{ratios}, ""
}

// fioNone stands for a number that does not exist, as in the rest of a report.
const fioNone = "–"

// fioCount formats a large quantity without decimals, with thousands separators.
func fioCount(f float64) string { return strings.TrimSuffix(numfmt.Rate(math.Round(f)), ".0") }

// fioMs formats microseconds as milliseconds with three decimals.
func fioMs(us float64) string { return strconv.FormatFloat(us/1000, 'f', 3, 64) }

// fioTimes formats a ratio as "1.12×", or "–" when it is undefined.
func fioTimes(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return fioNone
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

// fioUtilSection is the device utilisation fio reports (its JSON's
// disk_util: the share of the run's time each device underlying the files
// was busy), per cell and device, median over the completed repetitions.
// ok is false when no run has it (fio on a tmpfs, or outputs without it).
func fioUtilSection(runs []*result.Run) (kinds.Section, bool) {
	type row struct {
		target, device string
		clients        int
		util           []float64
	}
	var rows []*row
	by := map[string]*row{}
	for _, r := range runs {
		if r.Status != result.StatusOK {
			continue
		}
		fe := toolFacts(r, "fio")
		// Parsed: []map[string]any; read back from the store: []any.
		disks, _ := fe["disk_util"].([]any)
		if disks == nil {
			if ms, ok := fe["disk_util"].([]map[string]any); ok {
				for _, m := range ms {
					disks = append(disks, m)
				}
			}
		}
		for _, d := range disks {
			m, _ := d.(map[string]any)
			name, _ := m["name"].(string)
			u, ok := m["util"]
			if name == "" || !ok {
				continue
			}
			k := strings.Join([]string{r.Target, strconv.Itoa(r.Clients), name}, "\x00")
			if by[k] == nil {
				by[k] = &row{target: r.Target, device: name, clients: r.Clients}
				rows = append(rows, by[k])
			}
			by[k].util = append(by[k].util, numfmt.Number(u))
		}
	}
	if len(rows) == 0 {
		return kinds.Section{}, false
	}
	s := kinds.Section{Caption: "Device utilisation, % (fio's disk_util: the share of the run each device was busy), median of the completed repetitions:",
		Columns: []string{"target", "clients", "device", "util %"}, Right: []bool{false, true, false, true}}
	for _, r := range rows {
		s.Rows = append(s.Rows, []string{r.target, strconv.Itoa(r.clients), r.device, strconv.FormatFloat(hist.Median(r.util), 'f', 1, 64)})
	}
	return s, true
}
