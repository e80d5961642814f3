package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
)

// methodology writes the warnings section every report and comparison ends
// with: the warnings grouped by kind, one line per kind naming the cells it
// concerns (the kinds that most affect the comparison first), then what was
// checked, so that a clean section says "checked, nothing found" rather
// than nothing. groups name the cells (nil: the runs are counted instead);
// the full text of every warning is in the HTML report and in JSON.
func methodology(w io.Writer, ws []analysis.Warning, groups []*analysis.Group, markdown bool) error {
	ew := textWriter(w)
	if markdown {
		ew = markdownWriter(w)
	}
	if markdown {
		ew.printf("## Methodology\n\n")
	} else {
		ew.printf("\nMethodology\n")
	}
	label := newLabeler(groups)
	var warns, infos []analysis.WarningGroup
	for _, wg := range analysis.GroupWarnings(ws, groups) {
		if wg.Info {
			infos = append(infos, wg)
		} else {
			warns = append(warns, wg)
		}
	}
	if len(warns) == 0 {
		if markdown {
			ew.printf("No methodology warnings.\n")
		} else {
			ew.printf("  no warnings\n")
		}
	} else {
		if markdown {
			ew.printf("Warnings computed from the data, by kind, the ones that most affect the comparison first:\n\n")
		}
		for _, wg := range warns {
			writeWarningLine(ew, wg, label, markdown, "  ! ")
		}
	}
	if len(infos) > 0 {
		if markdown {
			ew.printf("\nContext (not problems):\n\n")
		}
		for _, wg := range infos {
			writeWarningLine(ew, wg, label, markdown, "  · ")
		}
	}
	if line := commandsLine(groups); line != "" {
		if markdown {
			ew.printf("\n%s\n", wrap(line, lineWidth, ""))
		} else {
			ew.printf("  %s\n", wrap(line, lineWidth, "    "))
		}
	}
	var checked []string
	for _, c := range analysis.Checks {
		checked = append(checked, c.Text)
	}
	if markdown {
		ew.printf("\n%s\n\n", wrap("Checked: "+strings.Join(checked, "; ")+".", lineWidth, ""))
	} else {
		ew.printf("  %s\n", wrap("checked: "+strings.Join(checked, "; "), lineWidth, "    "))
	}
	return ew.err
}

// writeWarningLine writes one kind of warning as one item: the warning
// itself when it is alone, else how many and the cells they concern.
func writeWarningLine(ew *errWriter, wg analysis.WarningGroup, label labeler, markdown bool, bullet string) {
	s := warningSummary(wg, label)
	if markdown {
		name := "**" + wg.Check + "**"
		if wg.Info {
			name = wg.Check
		}
		ew.printf("- %s\n", wrap(name+": "+cell(s), lineWidth, "  "))
		return
	}
	ew.printf("%s%s\n", bullet, wrap(wg.Check+": "+s, lineWidth, "      "))
}

// maxNamedCells bounds the cells one warning line names.
const maxNamedCells = 6

// warningSummary is the text of one warning kind's line.
func warningSummary(wg analysis.WarningGroup, label labeler) string {
	if len(wg.Warnings) == 1 {
		return wg.Warnings[0].Message
	}
	var names []string
	for i, g := range wg.Cells {
		if i == maxNamedCells {
			names = append(names, fmt.Sprintf("and %d more", len(wg.Cells)-maxNamedCells))
			break
		}
		names = append(names, g.Target+" · "+joinComma(label.scenario(g), numfmt.Plural(g.Clients, "1 client", fmt.Sprintf("%d clients", g.Clients))))
	}
	s := fmt.Sprintf("%d warnings", len(wg.Warnings))
	if len(names) > 0 {
		s += fmt.Sprintf(" in %d %s: %s", len(wg.Cells), numfmt.Plural(len(wg.Cells), "cell", "cells"), strings.Join(names, "; "))
	}
	return s
}

func joinComma(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

// ciText renders an interval in the metric's own format, with its level when
// the sample was too small to reach the level asked for.
func ciText(ci analysis.CI, want float64, f func(float64) string) string {
	if !ci.OK() {
		return ""
	}
	s := "[" + f(ci.Lo) + ", " + f(ci.Hi) + "]"
	if ci.Level+1e-9 < want {
		s += fmt.Sprintf(" at %.0f %%", ci.Level*100)
	}
	return s
}

func pct(f float64) string { return pctShort(f) + " %" }

func pctShort(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Sprintf("%+.1f", f) // +NaN, +Inf, -Inf
	case math.Signbit(f):
		return "-" + numfmt.Fixed(-f, 1)
	}
	return "+" + numfmt.Fixed(f, 1)
}
