package report

import (
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// Extra sections come from the kind registry: a kind (a disk benchmark's
// per-direction tables, for one) registers a Sections function, and every
// renderer writes what it returns as ordinary tables. The report itself
// knows no kind.

// kindTables returns the tables the kind of a report section registers, for
// that section's runs (completed and incomplete, in row order).
func kindTables(sec section, baseline string) []table {
	var out []table
	for _, s := range kindSections(sec, baseline) {
		out = append(out, table{Title: s.Title, Caption: s.Caption, Header: s.Columns, Rows: s.Rows,
			TextCols: 1, Right: s.Right, Note: s.Note, Lead: s.Lead})
	}
	return out
}

// kindSections returns what the kind of a report section registers for its runs.
func kindSections(sec section, baseline string) []kinds.Section {
	info, ok := kinds.Lookup(sec.groups[0].Kind)
	if !ok || info.Sections == nil {
		return nil
	}
	var runs []*result.Run
	seen := map[*analysis.Group]bool{}
	for _, g := range sec.groups {
		if seen[g] {
			continue // a comparison names the baseline's group once per cell
		}
		seen[g] = true
		runs = append(runs, g.Runs...)
		runs = append(runs, g.IncompleteRuns...)
	}
	return info.Sections(runs, sectionBaseline(sec, baseline))
}

// sectionBaseline is the one baseline a kind's ratio tables take in a
// section: with a baseline per engine (--baseline pg-x86,my-x86), the first
// of them that ran in the section.
func sectionBaseline(sec section, baseline string) string {
	names := analysis.SplitBaselines(baseline)
	if len(names) < 2 {
		return baseline
	}
	for _, n := range names {
		for _, g := range sec.groups {
			if g.Target == n {
				return n
			}
		}
	}
	return names[0]
}

// kindCharts returns the bar charts of a section's kind tables.
func kindCharts(i int, sec section, baseline string) []*barChart {
	var out []*barChart
	for j, s := range kindSections(sec, baseline) {
		if s.Bars != nil {
			c := &barChart{ID: fmt.Sprintf("s%d-kind%d", i, j), Bars: s.Bars}
			if c.hasData() {
				out = append(out, c)
			}
		}
	}
	return out
}

// leading splits a section's kind tables into those that open it and the rest.
func leading(tables []table, lead bool) []table {
	var out []table
	for _, t := range tables {
		if t.Lead == lead {
			out = append(out, t)
		}
	}
	return out
}

// writeKindSectionsText writes the kinds' tables of every section for the
// terminal, each section under its heading: with lead the tables that open
// a report (before its table of cells), else the others.
func writeKindSectionsText(ew *errWriter, groups []*analysis.Group, baseline string, lead bool) error {
	return writeKindSections(ew, groups, baseline, false, lead)
}

// writeKindSectionsMarkdown writes the same for an article.
func writeKindSectionsMarkdown(ew *errWriter, groups []*analysis.Group, baseline string, lead bool) {
	_ = writeKindSections(ew, groups, baseline, true, lead)
}

func writeKindSections(ew *errWriter, groups []*analysis.Group, baseline string, markdown, lead bool) error {
	multiStudy := len(distinct(groups, func(g *analysis.Group) string { return g.Study })) > 1
	label := newLabeler(groups)
	for _, sec := range sections(groups) {
		tables := leading(kindTables(sec, baseline), lead)
		if len(tables) == 0 {
			continue
		}
		heading := sectionHeading(sec.groups[0], multiStudy, label)
		if markdown {
			ew.printf("### %s\n\n", cell(heading))
			for _, t := range tables {
				t.writeMarkdown(ew)
			}
			continue
		}
		ew.printf("\n%s\n", strings.Repeat("-", 2)+" "+heading+" "+strings.Repeat("-", 2))
		for _, t := range tables {
			ew.printf("\n")
			if t.Title != "" {
				ew.printf("%s\n", t.Title)
			}
			if err := t.writeText(ew); err != nil {
				return err
			}
			if t.Note != "" {
				ew.printf("\n%s\n", t.Note)
			}
		}
		if lead {
			ew.printf("\n") // the table of cells follows
		}
	}
	return ew.err
}
