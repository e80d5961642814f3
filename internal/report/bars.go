package report

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/kinds"
)

// barChart draws a kind's grouped horizontal bars (per-query times of
// several targets): one row per category, one bar per series. Values that
// spread over more than two decades are drawn on a log axis, so that a
// 10 ms query and a 10 s one both stay readable.
type barChart struct {
	ID   string
	Bars *kinds.Bars
}

func (c *barChart) hasData() bool {
	for _, s := range c.Bars.Series {
		for _, v := range s.Values {
			if v > 0 && !math.IsInf(v, 0) {
				return true
			}
		}
	}
	return false
}

func (c *barChart) svg() string {
	b := c.Bars
	const fs, barH, gap, left, right, top = 13.0, 12.0, 8.0, 70.0, 90.0, 30.0
	w := 640.0
	lo, hi := math.Inf(1), 0.0
	for _, s := range b.Series {
		for _, v := range s.Values {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	logAxis := hi/lo > 100
	plotW := w - left - right
	x := func(v float64) float64 {
		if logAxis {
			l0 := math.Floor(math.Log10(lo))
			return plotW * (math.Log10(v) - l0 + 0.3) / (math.Log10(hi) - l0 + 0.3)
		}
		return plotW * v / hi
	}
	n := len(b.Series)
	rowH := float64(n)*barH + gap
	legendH := fs + 10
	h := top + rowH*float64(len(b.Categories)) + legendH + 10
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" data-chart="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" font-family="sans-serif" font-size="%.0f">`,
		html.EscapeString(c.ID), w, h, w, h, fs)
	axis := b.Unit
	if logAxis {
		axis += ", log scale"
	}
	fmt.Fprintf(&sb, `<title>%s</title><text x="%.0f" y="%.0f" font-weight="bold">%s (%s)</text>`,
		html.EscapeString(b.Title), left, fs+4, html.EscapeString(b.Title), html.EscapeString(axis))
	for i, cat := range b.Categories {
		y0 := top + float64(i)*rowH
		fmt.Fprintf(&sb, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`, left-6, y0+float64(n)*barH/2+fs/3, html.EscapeString(cat))
		for j, s := range b.Series {
			y := y0 + float64(j)*barH
			v := math.NaN()
			if i < len(s.Values) {
				v = s.Values[i]
			}
			if !(v > 0) || math.IsInf(v, 0) {
				fmt.Fprintf(&sb, `<text x="%.0f" y="%.1f" font-size="11" fill="#555">%s: null</text>`, left+2, y+barH-2, html.EscapeString(s.Name))
				continue
			}
			bw := math.Max(1, x(v))
			fmt.Fprintf(&sb, `<rect class="bar" x="%.0f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s %s</title></rect>`,
				left, y, bw, barH-1, colour(j), html.EscapeString(cat), html.EscapeString(s.Name), compact(v), html.EscapeString(b.Unit))
			fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" font-size="11">%s</text>`, left+bw+4, y+barH-2, compact(v))
		}
	}
	ly := h - 10
	lx := left
	for j, s := range b.Series {
		fmt.Fprintf(&sb, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`,
			lx, ly-11, colour(j), lx+16, ly, html.EscapeString(s.Name))
		lx += float64(len([]rune(s.Name)))*fs*0.62 + 36
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}
