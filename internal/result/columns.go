package result

// SeriesColumns keeps, point by point, what a report's digest reads of a
// run's series per point (SeriesDigest): each point's client CPU, and of
// its rate points (Run.RatePoints) the second, the rate and the p99. A
// report hands it the points one at a time as the store reads them, so
// that one run's memory grows by these few columns per point (28 bytes)
// rather than by whole points.
type SeriesColumns struct {
	// measured bounds the measured points (Run.MeasuredPoints); 0: none.
	measured int
	points   int
	// Seconds, Rates and P99 are of the measured points; RateLen says how
	// many of them are rate points.
	Seconds []int32
	Rates   []float64
	P99     []float64
	// CPU is every point's client CPU.
	CPU []float64
	// windows are those of the last two measured points (RatePoints'
	// partial last point).
	windows [2]float64
}

// maxSizedSeconds bounds the measured seconds NewSeriesColumns sizes its
// columns for: a day.
const maxSizedSeconds = 24 * 3600

// NewSeriesColumns is the columns of r's series, to be added point by
// point; r's summary bounds its measured points.
func NewSeriesColumns(r *Run) *SeriesColumns {
	c := &SeriesColumns{measured: r.Summary.MeasuredSeconds}
	// The columns are sized for the measured seconds up to a day: the
	// results file says how many there are, and a file that says 10^12
	// must not be believed before its points are read (a longer run's
	// columns grow as its points come).
	if n := min(c.measured, maxSizedSeconds); n > 0 {
		c.Seconds, c.Rates, c.P99 = make([]int32, 0, n), make([]float64, 0, n), make([]float64, 0, n)
		c.CPU = make([]float64, 0, n+1)
	}
	return c
}

// Add takes the series' next point.
func (c *SeriesColumns) Add(p SeriesPoint) {
	c.points++
	c.CPU = append(c.CPU, p.CPU)
	if c.measured > 0 && len(c.Seconds) >= c.measured {
		return
	}
	c.Seconds = append(c.Seconds, int32(p.Second))
	c.Rates = append(c.Rates, p.Rate)
	c.P99 = append(c.P99, p.P99)
	c.windows = [2]float64{c.windows[1], p.window()}
}

// Points is how many points were added.
func (c *SeriesColumns) Points() int { return c.points }

// RateLen is how many of the measured points are rate points: the first
// RateLen of Seconds, Rates and P99.
func (c *SeriesColumns) RateLen() int {
	n := len(c.Seconds)
	if n >= 2 && partialLast(c.windows[0], c.windows[1]) {
		return n - 1
	}
	return n
}

// Columns are the columns of series, added point by point, for the series of
// r (a run that holds its series).
func Columns(r *Run, series []SeriesPoint) *SeriesColumns {
	c := NewSeriesColumns(r)
	for _, p := range series {
		c.Add(p)
	}
	return c
}
