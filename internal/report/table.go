package report

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// table is a caption and rows of cells that every renderer writes the same
// way: aligned for the terminal, as Markdown, as HTML. The first TextCols
// columns hold names and are left-aligned; the others hold numbers and are
// right-aligned, so that they line up on their last digit.
type table struct {
	Title    string // a heading above the caption, for the sections a kind adds
	Caption  string
	Header   []string
	Rows     [][]string
	TextCols int
	// Right, when set, says per column whether it is right-aligned, instead
	// of TextCols.
	Right []bool
	Note  string // a sentence after the table
	// Lead: a kind's table that opens its report section (kinds.Section.Lead).
	Lead bool
}

// num reports whether column i is right-aligned (holds numbers).
func (t table) num(i int) bool {
	if t.Right != nil {
		return i < len(t.Right) && t.Right[i]
	}
	return i >= t.TextCols
}

// writeText writes the caption (if any) on its own line, then the header and
// rows with columns two spaces apart. Numbers are right-aligned by hand:
// tabwriter's AlignRight would right-align the names as well.
func (t table) writeText(ew *errWriter) error {
	if t.Caption != "" {
		ew.printf("%s\n", wrap(t.Caption, lineWidth, "  "))
	}
	rows := append([][]string{t.Header}, t.Rows...)
	width := make([]int, len(t.Header))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		for i, c := range row {
			if t.num(i) {
				c = strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)) + c
			}
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprint(tw, "\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ew.err
}

// writeMarkdown writes the title as a heading and the caption as a
// paragraph, then the table and a blank line, then the note.
func (t table) writeMarkdown(ew *errWriter) {
	if t.Title != "" {
		ew.printf("### %s\n\n", cell(t.Title))
	}
	if t.Caption != "" {
		ew.printf("%s\n\n", wrap(t.Caption, lineWidth, ""))
	}
	ew.printf("|")
	for _, h := range t.Header {
		ew.printf(" %s |", cell(h))
	}
	ew.printf("\n|")
	for i := range t.Header {
		if !t.num(i) {
			ew.printf(":--|")
		} else {
			ew.printf("--:|")
		}
	}
	ew.printf("\n")
	for _, row := range t.Rows {
		ew.printf("|")
		for _, c := range row {
			ew.printf(" %s |", cell(c))
		}
		ew.printf("\n")
	}
	ew.printf("\n")
	if t.Note != "" {
		ew.printf("%s\n\n", cell(t.Note))
	}
}

// tableCell is one cell as the HTML template writes it.
type tableCell struct {
	Text string
	Num  bool // right-aligned
}

// HTMLRows returns the rows for the HTML template, numbers marked.
func (t table) HTMLRows() [][]tableCell {
	out := make([][]tableCell, len(t.Rows))
	for i, row := range t.Rows {
		for j, c := range row {
			out[i] = append(out[i], tableCell{Text: c, Num: t.num(j)})
		}
	}
	return out
}
