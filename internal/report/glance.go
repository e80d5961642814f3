package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// A comparison cell a reader takes in at a glance, benchstat-like: the
// change, its interval where the data bound it, the verdict's symbol and
// what decided it, "-92.5 % [-94.7, -89.4] ▼ (p<0.001 n=3)" or "-38.5 % ~
// (p=0.208 n=2)¹". Why a cell has no interval or no verdict is a note,
// numbered once per distinct reason under the table (text, Markdown) or a
// tooltip and a details row (HTML), never repeated in every cell; each
// cell's own figures (the repetitions that would decide it, its interval's
// reason) stay in JSON and CSV.

// The verdict symbols, in the headline's direction: better, worse, within
// the scatter, untested.
const (
	markBetter = "▲"
	markWorse  = "▼"
	markSame   = "~"
	markNone   = "?"
)

// verdictMark is a verdict's symbol.
func verdictMark(v analysis.Verdict) string {
	switch v {
	case analysis.Faster:
		return markBetter
	case analysis.Slower:
		return markWorse
	case analysis.NoDifference:
		return markSame
	}
	return markNone
}

// glanceNotes numbers the distinct reasons of a table's cells.
type glanceNotes struct {
	alpha float64
	texts []string
}

// mark returns the note number's superscript for reason, adding it once.
func (n *glanceNotes) mark(reason string) string {
	if reason == "" {
		return ""
	}
	for i, t := range n.texts {
		if t == reason {
			return superscript(i + 1)
		}
	}
	n.texts = append(n.texts, reason)
	return superscript(len(n.texts))
}

// cell writes m at a glance, with its notes' marks.
func (n *glanceNotes) cell(m analysis.Metric, level float64) string {
	var marks []string
	for _, r := range []string{intervalNote(m), verdictNote(m, n.alpha)} {
		if k := n.mark(r); k != "" {
			marks = append(marks, k)
		}
	}
	// "¹,²", not "¹²", which reads as note twelve.
	return glanceChange(m, level) + strings.Join(marks, ",")
}

// glanceChange is the change, its interval, the symbol and the test's
// figures: "-92.5 % [-94.7, -89.4] ▼ (p<0.001 n=3)".
func glanceChange(m analysis.Metric, level float64) string {
	s := none
	if d := m.Delta; !math.IsNaN(d) {
		s = pct(d)
	}
	if ci := ciText(m.DeltaCI, level, pctShort); ci != "" {
		s += " " + ci
	}
	s += " " + verdictMark(m.Verdict)
	var fig []string
	if p := m.P; !math.IsNaN(p) && m.Verdict != analysis.TooFewForTest {
		fig = append(fig, pValue(p))
	}
	fig = append(fig, "n="+repsShort(m.BaseN, m.N))
	return s + " (" + strings.Join(fig, " ") + ")"
}

// repsShort is "3" for 3 against 3, "2+3" otherwise.
func repsShort(base, n int) string {
	if base == n {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d+%d", base, n)
}

// intervalNote is why a cell shows no interval, in words every such cell
// shares; "" when it has one or needs none.
func intervalNote(m analysis.Metric) string {
	if m.DeltaCI.OK() || m.NoCI == "" || m.Verdict == analysis.SingleRun {
		return ""
	}
	return "no interval: the repetitions are too few for their scatter, or do not scatter, or their values cannot bound a ratio " +
		"(each cell's reason and the repetitions that would give one: --format json, delta_pct_no_ci)"
}

// verdictNote is why a cell has no faster or slower verdict, in words every
// such cell shares.
func verdictNote(m analysis.Metric, alpha float64) string {
	switch m.Verdict {
	case analysis.NoDifference:
		return fmt.Sprintf("%s no significant difference at α = %.2f: the change is within the scatter of the repetitions "+
			"(the repetitions per side that would detect it: --format json, reps_needed)", markSame, alpha)
	case analysis.SingleRun:
		return markNone + " a single run on a side: no test; 3 repetitions per side would give one"
	case analysis.TooFewForTest:
		return fmt.Sprintf("%s too few runs for a test: %s cannot reach α = %.2f with them, and they do not scatter for a t test "+
			"(--format json, reps_needed)", markNone, analysis.MannWhitneyTest, alpha)
	}
	return ""
}

// legend says what the symbols mean, once per table.
func glanceLegend() string {
	return fmt.Sprintf("%s better, %s worse (significant, in the metric's direction), %s no significant difference, %s untested; "+
		"[interval] at the level shown; p and n (repetitions per side) of the test", markBetter, markWorse, markSame, markNone)
}

// lines are the notes, numbered as marked.
func (n *glanceNotes) lines() []string {
	out := make([]string, len(n.texts))
	for i, t := range n.texts {
		out[i] = superscript(i+1) + " " + t
	}
	return out
}

// superscript writes i in superscript digits.
func superscript(i int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, c := range fmt.Sprint(i) {
		b.WriteString(string([]rune(digits)[c-'0']))
	}
	return b.String()
}
