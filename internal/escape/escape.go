// Package escape writes text that came from a user (a target, workload or
// study name, a label, a path) into each output format so that it reads as
// the text it is and never as the format's own syntax: one rule per format,
// each in one function here, so that every renderer applies the same one.
//
//   - Terminal and plain text: control characters (C0, DEL, C1) and the
//     Unicode format characters that reorder or break a line (bidi
//     overrides and isolates, U+2028/U+2029) are shown as Go escapes
//     (\x1b, \u202e), so no name moves the cursor, colours the terminal,
//     overwrites a line with \r or reverses the text around it.
//   - Markdown: the terminal rule, then each < that would open a tag and
//     each & that would start a character reference as an entity, because
//     Markdown is published on sites that render inline HTML; a table cell
//     also has its | escaped and its line breaks made spaces (the report's
//     cell function).
//   - CSV: a text field that starts with = + - @ TAB or CR, and is not a
//     number, gets a leading ' (OWASP's advice against formula injection);
//     encoding/csv quotes the rest. Numbers such as "-27.3" stay as they are.
//   - benchstat: a benchmark name holds no space or control character, and
//     / separates its sub-benchmarks, so each of them becomes _.
//   - HTML and JSON need nothing here: html/template and encoding/json
//     escape by context, and JSON keeps names intact.
package escape

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// hostile reports whether r must not reach a terminal raw: a control
// character, or a format character that reorders or breaks the line.
func hostile(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f', r == '\u2028', r == '\u2029',
		r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Hostile reports whether s holds a character the terminal rule escapes,
// for the parsers that refuse such names instead.
func Hostile(s string) (rune, bool) {
	for _, r := range s {
		if hostile(r) {
			return r, true
		}
	}
	return 0, false
}

// Terminal returns s with every control and line-reordering character
// written as its Go escape (\x1b, \r, \u202e): for a name inside one line.
func Terminal(s string) string { return controls(s, "") }

// TerminalText is Terminal for a whole document: line feeds and tabs,
// which the document's own layout uses, stay.
func TerminalText(s string) string { return controls(s, "\n\t") }

// controls escapes the hostile runes of s that keep does not list.
func controls(s, keep string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return hostile(r) && !strings.ContainsRune(keep, r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !hostile(r) || strings.ContainsRune(keep, r) {
			b.WriteRune(r)
			continue
		}
		switch {
		case r < utf8.RuneSelf:
			// strconv quotes \n, \r, \t by name and the rest as \x1b.
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// MarkdownText is the Markdown rule for a whole document whose Markdown
// syntax the renderer wrote (it writes no HTML of its own): the terminal
// rule, then every < that would open a tag, a comment or a processing
// instruction (before a letter, /, ! or ?) as &lt;, and every & that would
// start a character reference (before a letter or #) as &amp;. No name
// then opens an element, an attribute or a script on a site that renders
// inline HTML, and "p<0.001" or "> 10 %" read as they are written.
func MarkdownText(s string) string {
	s = TerminalText(s)
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		letter := next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z'
		switch {
		case c == '<' && (letter || next == '/' || next == '!' || next == '?'):
			b.WriteString("&lt;")
		case c == '&' && (letter || next == '#'):
			b.WriteString("&amp;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// formulaStart are the first characters a spreadsheet reads as a formula.
const formulaStart = "=+-@\t\r"

// CSV returns a text field for a CSV cell: prefixed with ' when a
// spreadsheet would read it as a formula and it is not a number.
func CSV(s string) string {
	if s == "" || !strings.ContainsRune(formulaStart, rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64); err == nil {
		return s
	}
	return "'" + s
}

// Benchstat returns a value for a benchmark name: every space, control
// character and / becomes _, so that the name stays one field and the value
// one level of benchstat's sub-benchmarks.
func Benchstat(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || hostile(r) || r == '/' {
			return '_'
		}
		return r
	}, s)
}

// Writer applies rule to every write to w, whole runes at a time: a rune
// cut by a write's end waits for the next write.
type Writer struct {
	w       io.Writer
	rule    func(string) string
	pending []byte
}

// NewWriter writes to w through rule (TerminalText, MarkdownText).
func NewWriter(w io.Writer, rule func(string) string) *Writer {
	return &Writer{w: w, rule: rule}
}

// Write escapes p by the writer's rule; it reports len(p) written when the
// escaped text was.
func (e *Writer) Write(p []byte) (int, error) {
	buf := append(e.pending, p...)
	cut := len(buf)
	// Keep back an incomplete rune at the end (at most 3 bytes).
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-3; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	e.pending = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(e.w, e.rule(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
