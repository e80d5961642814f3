package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// Methodology writes the warnings section every report and comparison ends
// with: each finding with the runs behind it, then what was checked, so that
// a clean section says "checked, nothing found" rather than nothing.
func Methodology(w io.Writer, ws []analysis.Warning, markdown bool) error {
	ew := &errWriter{w: w}
	if markdown {
		ew.printf("## Methodology\n\n")
	} else {
		ew.printf("\nMethodology\n")
	}
	var warns, infos []analysis.Warning
	for _, x := range ws {
		if x.Info {
			infos = append(infos, x)
		} else {
			warns = append(warns, x)
		}
	}
	item := func(x analysis.Warning) {
		if markdown {
			ew.printf("- **%s**: %s\n", x.Check, cell(x.Message))
		} else {
			ew.printf("  ! %s: %s\n", x.Check, x.Message)
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
			ew.printf("Warnings computed from the data:\n\n")
		}
		for _, x := range warns {
			item(x)
		}
	}
	if len(infos) > 0 {
		if markdown {
			ew.printf("\nContext (not problems):\n\n")
			for _, x := range infos {
				ew.printf("- %s: %s\n", x.Check, cell(x.Message))
			}
		} else {
			for _, x := range infos {
				ew.printf("  · %s: %s\n", x.Check, x.Message)
			}
		}
	}
	var checked []string
	for _, c := range analysis.CheckOrder() {
		checked = append(checked, analysis.Checks[c])
	}
	if markdown {
		ew.printf("\nChecked: %s.\n\n", strings.Join(checked, "; "))
	} else {
		ew.printf("  checked: %s\n", strings.Join(checked, "; "))
	}
	return ew.err
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

func pct(f float64) string { return fmt.Sprintf("%+.1f %%", f) }

func pctShort(f float64) string { return fmt.Sprintf("%+.1f", f) }
