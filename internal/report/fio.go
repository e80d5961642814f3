package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// fio runs are shown per direction the way disk studies publish them: read
// and write IOPS and bandwidth, completion latency mean / p99 / p99.9, and
// with several targets, IOPS and bandwidth as ratios to the baseline. The
// terminal, Markdown and HTML reports write the same tables.

// fioSections holds the analysis of every fio group of a report.
type fioSections map[*analysis.Group]*analysis.FioCell

func newFioSections(groups []*analysis.Group, baseline string) fioSections {
	m := fioSections{}
	for _, c := range analysis.Fio(groups, baseline) {
		m[c.Group] = c
	}
	return m
}

// tables returns the fio tables of one section (none when its groups are
// not fio runs), and a sentence for when the named baseline leaves the
// section without ratios.
func (m fioSections) tables(sec section, baseline string) ([]table, string) {
	var cells []*analysis.FioCell
	for _, g := range sec.groups {
		if c := m[g]; c != nil {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil, ""
	}
	dirs := analysis.FioDirectionsOf(cells)
	if len(dirs) == 0 {
		return nil, ""
	}
	key := []string{"target", "clients"}
	keyOf := func(c *analysis.FioCell) []string {
		return []string{c.Group.Target, strconv.Itoa(c.Group.Clients)}
	}
	// dirCols appends per direction the columns of f, or "–" where the cell
	// has no completed run or did no I/O that way.
	dirCols := func(row []string, c *analysis.FioCell, n int, f func(io *analysis.FioIO) []string) []string {
		for _, d := range dirs {
			io := c.IO[d]
			if io == nil {
				for range n {
					row = append(row, none)
				}
				continue
			}
			row = append(row, f(io)...)
		}
		return row
	}

	rates := table{Caption: "IOPS and bandwidth (MiB/s) per direction, median of the completed repetitions:",
		Header: append(append([]string{}, key...), "n"), TextCols: 1}
	lat := table{Caption: "Completion latency (clat) per direction, ms: mean, p99 and p99.9 as fio printed them per repetition, median of the completed repetitions:",
		Header: append([]string{}, key...), TextCols: 1}
	for _, d := range dirs {
		rates.Header = append(rates.Header, d+" IOPS")
	}
	for _, d := range dirs {
		rates.Header = append(rates.Header, d+" MiB/s")
		lat.Header = append(lat.Header, d+" mean", d+" p99", d+" p99.9")
	}
	for _, c := range cells {
		row := append(keyOf(c), strconv.Itoa(c.Group.N))
		row = dirCols(row, c, 1, func(io *analysis.FioIO) []string { return []string{count(io.IOPS)} })
		row = dirCols(row, c, 1, func(io *analysis.FioIO) []string { return []string{mib(io.Bandwidth)} })
		rates.Rows = append(rates.Rows, row)
		lat.Rows = append(lat.Rows, dirCols(keyOf(c), c, 3, func(io *analysis.FioIO) []string {
			mean, p99, p999 := none, none, none
			if io.ClatMean > 0 {
				mean = ms(io.ClatMean)
			}
			if io.HasPercentiles {
				p99, p999 = ms(io.P99), ms(io.P999)
			}
			return []string{mean, p99, p999}
		}))
	}
	out := []table{rates, lat}

	targets := distinct(sec.groups, func(g *analysis.Group) string { return g.Target })
	if len(targets) < 2 {
		return out, ""
	}
	var compared []*analysis.FioCell
	bases := map[string]bool{}
	for _, c := range cells {
		if c.Base != nil && c.Base != c {
			compared = append(compared, c)
			bases[c.Base.Group.Target] = true
		}
	}
	if len(compared) == 0 {
		if baseline != "" {
			return out, "No ratios: " + baseline + " has no completed run with these parameters."
		}
		return out, ""
	}
	ratios := table{Header: append([]string{}, key...), TextCols: 1}
	if len(bases) == 1 {
		ratios.Caption = "Ratio to " + compared[0].Base.Group.Target + ", ×: median IOPS and bandwidth divided by " + compared[0].Base.Group.Target + "'s at the same clients:"
	} else {
		// With no baseline named, a cell the first target lacks is compared
		// against the first target that has it.
		ratios.Caption = "Ratio to the first target with the same clients, ×: median IOPS and bandwidth divided by its:"
		ratios.Header = []string{"target", "relative to", "clients"}
		ratios.TextCols = 2
	}
	for _, d := range dirs {
		ratios.Header = append(ratios.Header, d+" IOPS")
	}
	for _, d := range dirs {
		ratios.Header = append(ratios.Header, d+" MiB/s")
	}
	for _, c := range compared {
		row := keyOf(c)
		if len(bases) > 1 {
			row = []string{c.Group.Target, c.Base.Group.Target, strconv.Itoa(c.Group.Clients)}
		}
		for _, m := range []map[string]float64{c.IOPSRatio, c.BandwidthRatio} {
			for _, d := range dirs {
				row = append(row, times(m[d]))
			}
		}
		ratios.Rows = append(ratios.Rows, row)
	}
	return append(out, ratios), ""
}

// mib formats bytes per second as MiB/s (2^20 bytes, fio's unit) with one decimal.
func mib(bytesPerSec float64) string { return rate(bytesPerSec / (1 << 20)) }

// times formats a ratio as "1.12×", or "–" when it is undefined.
func times(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return none
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

// writeFioText writes the fio tables of every section for the terminal.
func writeFioText(ew *errWriter, groups []*analysis.Group, baseline string) error {
	fs := newFioSections(groups, baseline)
	if len(fs) == 0 {
		return nil
	}
	multiStudy := len(distinct(groups, func(g *analysis.Group) string { return g.Study })) > 1
	label := newLabeler(groups)
	for _, sec := range sections(groups) {
		tables, note := fs.tables(sec, baseline)
		if len(tables) == 0 {
			continue
		}
		ew.printf("\n%s\n", strings.Repeat("-", 2)+" "+sectionHeading(sec.groups[0], multiStudy, label)+" "+strings.Repeat("-", 2))
		for _, t := range tables {
			ew.printf("\n")
			if err := t.writeText(ew); err != nil {
				return err
			}
		}
		if note != "" {
			ew.printf("\n%s\n", note)
		}
	}
	return ew.err
}
