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
	w, h := c.Width, c.Height
	if w == 0 {
		w = 520
	}
	if h == 0 {
		h = 300
	}
	// The chart is drawn at its natural size (width and height in px, scaled
	// down only on a narrower screen), so that its text is fs px at 100 %
	// zoom: at least 11 px, the smallest a reader takes in without zooming.
	fs := 13.0
	left, right, top, bottom := 62.0, 16.0, 30.0, 44.0
	if c.Small {
		fs = 11
		left, right, top, bottom = 46, 8, 20, 22
	}
	// Legend rows below the plot.
	type legendItem struct {
		s    lineSeries
		x, y float64
	}
	var legend []legendItem
	legendH := 0.0
	if !c.Small && len(c.Series) > 0 {
		x, row := left, 0
		for _, s := range c.Series {
			iw := float64(len([]rune(s.Name)))*fs*0.62 + 34
			if x+iw > w-right && x > left {
				x, row = left, row+1
			}
			legend = append(legend, legendItem{s, x, float64(row)})
			x += iw
		}
		legendH = float64(row+1) * (fs + 8)
	}
	plotW := w - left - right
	plotH := h - top - bottom - legendH

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
	yticks, ytop := niceTicks(ymax)
	pad := 0.0
	if c.XTicks != nil {
		pad = 0.5 // categorical axis: half a step of room on each side
	}
	px := func(x float64) float64 { return left + (x-xmin+pad)/(xmax-xmin+2*pad)*plotW }
	py := func(y float64) float64 { return top + plotH - y/ytop*plotH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" data-chart="%s" role="img" aria-label="%s" font-family="system-ui, sans-serif" font-size="%s">`,
		f1(w), f1(h), f1(w), f1(h), html.EscapeString(c.ID), html.EscapeString(c.Title), f1(fs))
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(c.Title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%s" height="%s" fill="#fff"/>`, f1(w), f1(h))
	if c.Title != "" {
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-weight="600">%s</text>`, f1(left), f1(top-8), html.EscapeString(c.Title))
	}
	// Grid and y labels.
	for _, t := range yticks {
		y := py(t.V)
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e3e3e3"/>`, f1(left), f1(left+plotW), f1(y), f1(y))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle" fill="#444">%s</text>`, f1(left-4), f1(y), html.EscapeString(t.Label))
	}
	xticks := c.XTicks
	if xticks == nil {
		xticks = linearTicks(xmin, xmax, 6)
	}
	for _, t := range xticks {
		x := px(t.V)
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#999"/>`, f1(x), f1(x), f1(top+plotH), f1(top+plotH+4))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" fill="#444">%s</text>`, f1(x), f1(top+plotH+fs+4), html.EscapeString(t.Label))
	}
	fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#999"/>`, f1(left), f1(left+plotW), f1(top+plotH), f1(top+plotH))
	if c.XLabel != "" && !c.Small {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" fill="#444">%s</text>`, f1(left+plotW/2), f1(top+plotH+2*fs+8), html.EscapeString(c.XLabel))
	}
	if c.YLabel != "" {
		fmt.Fprintf(&b, `<text transform="translate(%s %s) rotate(-90)" text-anchor="middle" fill="#444">%s</text>`, f1(fs), f1(top+plotH/2), html.EscapeString(c.YLabel))
	}
	// Series.
	for i, s := range c.Series {
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
			d.WriteString(f1(px(x)) + " " + f1(py(y)))
			pen = true
		}
		if d.Len() == 0 {
			continue
		}
		dash := ""
		if s.Dash != "" {
			dash = ` stroke-dasharray="` + s.Dash + `"`
		}
		sw := "2"
		if c.Small {
			sw = "1.2"
		}
		fmt.Fprintf(&b, `<path data-series="%s" d="%s" fill="none" stroke="%s" stroke-width="%s"%s/>`, html.EscapeString(s.Name), d.String(), col, sw, dash)
		if !c.Small {
			for j, x := range s.X {
				if math.IsNaN(s.Y[j]) {
					continue
				}
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"><title>%s: %s</title></circle>`, f1(px(x)), f1(py(s.Y[j])), col, html.EscapeString(s.Name), compact(s.Y[j]))
			}
		}
		if s.Lo != nil && s.Hi != nil {
			for j, x := range s.X {
				lo, hi := s.Lo[j], s.Hi[j]
				if math.IsNaN(lo) || math.IsNaN(hi) {
					continue
				}
				X := px(x)
				fmt.Fprintf(&b, `<path class="errbar" d="M%s %sL%s %sM%s %sL%s %sM%s %sL%s %s" stroke="%s" fill="none"/>`,
					f1(X), f1(py(lo)), f1(X), f1(py(hi)),
					f1(X-4), f1(py(lo)), f1(X+4), f1(py(lo)),
					f1(X-4), f1(py(hi)), f1(X+4), f1(py(hi)), col)
			}
		}
	}
	for _, it := range legend {
		col := it.s.Colour
		y := h - legendH + it.y*(fs+8) + fs/2 + 2
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
