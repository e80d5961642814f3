package report

import "github.com/fairbench/fairbench/internal/escape"

// MarkdownCell is s fit for a cell of a Markdown table that a command
// writes itself: on one line, its pipes escaped, and no HTML a name could
// open (escape.MarkdownText).
func MarkdownCell(s string) string { return escape.MarkdownText(cell(s)) }
