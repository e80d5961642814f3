package analysis

import "math"

// FioDirections are fio's I/O directions in the order fio prints them.
var FioDirections = []string{"read", "write", "trim"}

// FioIO is one I/O direction of a fio cell over its completed repetitions,
// the numbers disk studies publish, each the median over the repetitions of
// what fio printed for the run (like every throughput here): a single
// repetition shows fio's own numbers. Latency is completion latency (clat).
type FioIO struct {
	N         int     // repetitions that did I/O in this direction
	IOPS      float64 // median over those repetitions
	Bandwidth float64 // bytes per second
	ClatMean  float64 // µs; 0 when fio printed no clat
	// P99 and P999 are µs: fio's printed percentiles where one job entry
	// held the direction's I/O (group_reporting), else the clones' merged
	// histogram's. HasPercentiles is false when no repetition has them.
	P99, P999      float64
	HasPercentiles bool
}

// FioCell is a group of fio runs (kind "fio") split by direction, with its
// IOPS and bandwidth relative to the baseline's cell of the same study,
// workload, parameters and clients.
type FioCell struct {
	Group *Group
	IO    map[string]*FioIO // by direction; only the directions with I/O
	// Base is the cell the ratios divide by: the baseline target's, or with
	// no baseline named, the first target's with completed runs. It is nil
	// when there is none, and the cell itself for the baseline.
	Base *FioCell
	// IOPSRatio and BandwidthRatio are this cell's medians divided by Base's,
	// by direction; NaN where either side did no I/O in that direction.
	IOPSRatio, BandwidthRatio map[string]float64
}

// FioDirectionsOf returns the directions any of cells did I/O in, in fio's order.
func FioDirectionsOf(cells []*FioCell) []string {
	var out []string
	for _, d := range FioDirections {
		for _, c := range cells {
			if c.IO[d] != nil {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// Fio returns a FioCell for every group of kind "fio", in the groups' order.
// The per-direction numbers are the ones the fio adapter keeps in each run's
// environment (env.fio.read: iops, bw_bytes, total_ios, clat_mean_us,
// clat_p99_us, clat_p99.9_us), which imported runs and runs of a tool = "fio"
// study cell both carry. With baseline "", each cell's ratios
// are against the first target (in the groups' order) with completed runs in
// the same cell.
func Fio(groups []*Group, baseline string) []*FioCell {
	var cells []*FioCell
	first := map[string]*FioCell{}
	for _, g := range groups {
		if g.Kind != "fio" {
			continue
		}
		c := fioCell(g)
		cells = append(cells, c)
		if g.N == 0 {
			continue
		}
		k := cellKey(g)
		if baseline == "" && first[k] == nil || g.Target == baseline {
			first[k] = c
		}
	}
	for _, c := range cells {
		b := first[cellKey(c.Group)]
		if b == nil || c.Group.N == 0 {
			continue
		}
		c.Base = b
		c.IOPSRatio, c.BandwidthRatio = map[string]float64{}, map[string]float64{}
		for _, d := range FioDirections {
			x, y := c.IO[d], b.IO[d]
			if x == nil && y == nil {
				continue
			}
			c.IOPSRatio[d], c.BandwidthRatio[d] = math.NaN(), math.NaN()
			if x != nil && y != nil {
				c.IOPSRatio[d] = ratio(x.IOPS, y.IOPS)
				c.BandwidthRatio[d] = ratio(x.Bandwidth, y.Bandwidth)
			}
		}
	}
	return cells
}

func ratio(x, base float64) float64 {
	if base <= 0 {
		return math.NaN()
	}
	return x / base
}

func fioCell(g *Group) *FioCell {
	c := &FioCell{Group: g, IO: map[string]*FioIO{}}
	for _, d := range FioDirections {
		var iops, bw, mean, p99, p999 []float64
		for _, r := range g.Runs {
			fe, _ := r.Env["fio"].(map[string]any)
			de, _ := fe[d].(map[string]any)
			if de == nil || toFloat(de["total_ios"]) <= 0 {
				continue
			}
			iops = append(iops, toFloat(de["iops"]))
			bw = append(bw, toFloat(de["bw_bytes"]))
			if v, ok := de["clat_mean_us"]; ok {
				mean = append(mean, toFloat(v))
			}
			if v, ok := de["clat_p99_us"]; ok {
				p99 = append(p99, toFloat(v))
			}
			if v, ok := de["clat_p99.9_us"]; ok {
				p999 = append(p999, toFloat(v))
			}
		}
		if len(iops) == 0 {
			continue
		}
		c.IO[d] = &FioIO{N: len(iops), IOPS: Median(iops), Bandwidth: Median(bw), ClatMean: Median(mean),
			P99: Median(p99), P999: Median(p999), HasPercentiles: len(p99) > 0}
	}
	return c
}
