package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/numfmt"
)

// Charts are drawn here as plain SVG, so the HTML report needs no script and
// no network, and every chart can also be saved as a standalone .svg file.

// palette is Okabe–Ito's colour-blind-safe set.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

func colour(i int) string { return palette[i%len(palette)] }

// tick is one labelled position on an axis.
type tick struct {
	V     float64
	Label string
}

// lineSeries is one line of a chart. A NaN in Y breaks the line. Lo and Hi,
// when set, draw an error bar at each point where both are finite.
type lineSeries struct {
	Name   string
	Colour string
	Dash   string
	X, Y   []float64
	Lo, Hi []float64
}

// lineChart is an SVG line chart with a zero-based y axis.
type lineChart struct {
	ID            string // unique in a report; the data-chart attribute and the file name
	Title         string
	XLabel        string
	YLabel        string
	XTicks        []tick // nil: linear ticks from the data
	Series        []lineSeries
	Width, Height float64
	Small         bool // no legend, smaller type
	// Numbers is the table of the numbers the chart draws, which the HTML
	// report puts beside it.
	Numbers *table
}

// Named is a chart rendered on its own, for --charts.
type Named struct {
	ID  string
	SVG string
}

// hasData tells whether any series has a finite point.
func (c *lineChart) hasData() bool {
	for _, s := range c.Series {
		for _, y := range s.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				return true
			}
		}
	}
	return false
}

// svg renders the chart. Widths and heights are in viewBox units; the element
// scales to its container.
func (c *lineChart) svg() string {
	f := c.frame()
	legend := c.legendLayout(&f)
	yticks := f.scale(c)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" data-chart="%s" role="img" aria-label="%s" font-family="system-ui, sans-serif" font-size="%s">`,
		f1(f.w), f1(f.h), f1(f.w), f1(f.h), html.EscapeString(c.ID), html.EscapeString(c.Title), f1(f.fs))
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%s" height="%s" fill="#fff"/>`, f1(f.w), f1(f.h))
	if c.Title != "" {
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-weight="600">%s</text>`, f1(f.left), f1(f.top-8), html.EscapeString(c.Title))
	}
	c.writeAxes(&b, &f, yticks)
	for i, s := range c.Series {
		c.writeSeries(&b, &f, i, s)
	}
	for _, it := range legend {
		col := it.s.Colour
		y := f.h - f.legendH + it.y*(f.fs+8) + f.fs/2 + 2
		dash := ""
		if it.s.Dash != "" {
			dash = ` stroke-dasharray="` + it.s.Dash + `"`
		}
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="3"%s/>`, f1(it.x), f1(it.x+22), f1(y), f1(y), col, dash)
		fmt.Fprintf(&b, `<text x="%s" y="%s" dominant-baseline="middle">%s</text>`, f1(it.x+26), f1(y), html.EscapeString(it.s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// chartFrame is where a line chart's plot lies in its viewBox, and the data
// range its axes span.
type chartFrame struct {
	w, h, fs                 float64
	left, right, top, bottom float64
	legendH                  float64
	plotW, plotH             float64
	xmin, xmax, ytop, pad    float64
}

// frame is the chart's size and margins. The chart is drawn at its natural
// size (width and height in px, scaled down only on a narrower screen), so
// that its text is fs px at 100 % zoom: at least 11 px, the smallest a reader
// takes in without zooming.
func (c *lineChart) frame() chartFrame {
	f := chartFrame{w: c.Width, h: c.Height, fs: 13, left: 62, right: 16, top: 30, bottom: 44}
	if f.w == 0 {
		f.w = 520
	}
	if f.h == 0 {
		f.h = 300
	}
	if c.Small {
		f.fs = 11
		f.left, f.right, f.top, f.bottom = 46, 8, 20, 22
	}
	return f
}

// legendItem is a series' entry in the legend, at x on legend row y.
type legendItem struct {
	s    lineSeries
	x, y float64
}

// legendLayout places the legend's rows below the plot, and sets the plot's
// size to what they leave.
func (c *lineChart) legendLayout(f *chartFrame) []legendItem {
	var legend []legendItem
	if !c.Small && len(c.Series) > 0 {
		x, row := f.left, 0
		for _, s := range c.Series {
			iw := float64(len([]rune(s.Name)))*f.fs*0.62 + 34
			if x+iw > f.w-f.right && x > f.left {
				x, row = f.left, row+1
			}
			legend = append(legend, legendItem{s, x, float64(row)})
			x += iw
		}
		f.legendH = float64(row+1) * (f.fs + 8)
	}
	f.plotW = f.w - f.left - f.right
	f.plotH = f.h - f.top - f.bottom - f.legendH
	return legend
}

// scale sets the axes' range from the chart's data and ticks, and returns
// the y axis' ticks.
func (f *chartFrame) scale(c *lineChart) []tick {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymax := 0.0
	for _, s := range c.Series {
		for i, x := range s.X {
			if math.IsNaN(s.Y[i]) {
				continue
			}
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymax = math.Max(ymax, s.Y[i])
			if s.Hi != nil && !math.IsNaN(s.Hi[i]) {
				ymax = math.Max(ymax, s.Hi[i])
			}
		}
	}
	for _, t := range c.XTicks {
		xmin, xmax = math.Min(xmin, t.V), math.Max(xmax, t.V)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	f.xmin, f.xmax = xmin, xmax
	yticks, ytop := niceTicks(ymax)
	f.ytop = ytop
	if c.XTicks != nil {
		f.pad = 0.5 // categorical axis: half a step of room on each side
	}
	return yticks
}

func (f *chartFrame) px(x float64) float64 {
	return f.left + (x-f.xmin+f.pad)/(f.xmax-f.xmin+2*f.pad)*f.plotW
}

func (f *chartFrame) py(y float64) float64 { return f.top + f.plotH - y/f.ytop*f.plotH }

// writeAxes draws the grid, the ticks and the axes' labels.
func (c *lineChart) writeAxes(b *strings.Builder, f *chartFrame, yticks []tick) {
	left, top, plotW, plotH, fs := f.left, f.top, f.plotW, f.plotH, f.fs
	for _, t := range yticks {
		y := f.py(t.V)
		fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e3e3e3"/>`, f1(left), f1(left+plotW), f1(y), f1(y))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle" fill="#444">%s</text>`, f1(left-4), f1(y), html.EscapeString(t.Label))
	}
	xticks := c.XTicks
	if xticks == nil {
		xticks = linearTicks(f.xmin, f.xmax, 6)
	}
	for _, t := range xticks {
		x := f.px(t.V)
		fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#999"/>`, f1(x), f1(x), f1(top+plotH), f1(top+plotH+4))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#444">%s</text>`, f1(x), f1(top+plotH+fs+4), html.EscapeString(t.Label))
	}
	fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#999"/>`, f1(left), f1(left+plotW), f1(top+plotH), f1(top+plotH))
	if c.XLabel != "" && !c.Small {
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="#444">%s</text>`, f1(left+plotW/2), f1(top+plotH+2*fs+8), html.EscapeString(c.XLabel))
	}
	if c.YLabel != "" {
		fmt.Fprintf(b, `<text transform="translate(%s %s) rotate(-90)" text-anchor="middle" fill="#444">%s</text>`, f1(fs), f1(top+plotH/2), html.EscapeString(c.YLabel))
	}
}

// writeSeries draws series i: its line (broken where a value is missing),
// its points and its error bars.
func (c *lineChart) writeSeries(b *strings.Builder, f *chartFrame, i int, s lineSeries) {
	col := s.Colour
	if col == "" {
		col = colour(i)
	}
	var d strings.Builder
	pen := false
	for j, x := range s.X {
		y := s.Y[j]
		if math.IsNaN(y) || math.IsInf(y, 0) {
			pen = false
			continue
		}
		if pen {
			d.WriteString("L")
		} else {
			d.WriteString("M")
		}
		d.WriteString(f1(f.px(x)) + " " + f1(f.py(y)))
		pen = true
	}
	if d.Len() == 0 {
		return
	}
	dash := ""
	if s.Dash != "" {
		dash = ` stroke-dasharray="` + s.Dash + `"`
	}
	sw := "2"
	if c.Small {
		sw = "1.2"
	}
	fmt.Fprintf(b, `<path data-series="%s" d="%s" fill="none" stroke="%s" stroke-width="%s"%s/>`, html.EscapeString(s.Name), d.String(), col, sw, dash)
	if !c.Small {
		for j, x := range s.X {
			if math.IsNaN(s.Y[j]) {
				continue
			}
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"><title>%s: %s</title></circle>`, f1(f.px(x)), f1(f.py(s.Y[j])), col, html.EscapeString(s.Name), compact(s.Y[j]))
		}
	}
	if s.Lo != nil && s.Hi != nil {
		for j, x := range s.X {
			lo, hi := s.Lo[j], s.Hi[j]
			if math.IsNaN(lo) || math.IsNaN(hi) {
				continue
			}
			X := f.px(x)
			fmt.Fprintf(b, `<path class="errbar" d="M%s %sL%s %sM%s %sL%s %sM%s %sL%s %s" stroke="%s" fill="none"/>`,
				f1(X), f1(f.py(lo)), f1(X), f1(f.py(hi)),
				f1(X-4), f1(f.py(lo)), f1(X+4), f1(f.py(lo)),
				f1(X-4), f1(f.py(hi)), f1(X+4), f1(f.py(hi)), col)
		}
	}
}

// niceTicks returns about five ticks from 0 to a round top at or above max.
func niceTicks(max float64) ([]tick, float64) {
	if !(max > 0) || math.IsInf(max, 0) {
		max = 1
	}
	raw := max / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	top := math.Ceil(max/step) * step
	if math.IsInf(top, 0) { // max within a step of the largest float: no rounder top exists
		top, step = max, max/4
	}
	// Counted, not stepped to top: a step lost in v's rounding, or a top
	// past the largest float, must not loop forever.
	n := int(math.Round(top / step))
	ts := make([]tick, 0, n+1)
	for i := range n + 1 {
		v := float64(i) * step
		ts = append(ts, tick{v, compact(v)})
	}
	return ts, top
}

// linearTicks spreads about n round ticks over [lo, hi].
func linearTicks(lo, hi float64, n int) []tick {
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	first := math.Ceil(lo/step) * step
	count := math.Floor((hi+step/1e6-first)/step) + 1
	if !(count > 0) || count > float64(4*n) {
		// A span no step of floats resolves (NaN or infinite, or a step below
		// the values' precision): the ends only.
		return []tick{{lo, compact(lo)}, {hi, compact(hi)}}
	}
	ts := make([]tick, 0, int(count))
	for i := range int(count) {
		v := first + float64(i)*step
		ts = append(ts, tick{v, compact(v)})
	}
	return ts
}

// compact formats an axis value: 1.5k, 2M, 0.25.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// f1 formats a coordinate with one decimal, without a trailing ".0".
func f1(v float64) string {
	s := numfmt.Fixed(v, 1)
	return strings.TrimSuffix(s, ".0")
}
