package fromcommands

import (
	"fmt"
	"strings"
)

// The shell fromcommands reads: words with single and double quotes and
// backslashes, comments, line continuations, commands separated by
// newlines, ";", "&&", "||" and "&", pipes and redirections (their targets
// dropped), and the simple for-loop `for VAR in V1 V2 …; do …; done`, on one
// line or several. Variables ($VAR, ${VAR}) are kept as written: a loop's
// are filled in per value, the others stay placeholders.

// token is a word or an operator of the shell text, with its line.
type token struct {
	text string
	op   bool // an operator: ; && || & | or a redirection
	line int
}

// tokenize splits text into words and operators; a newline is the ";"
// operator.
func tokenize(text string) ([]token, error) {
	var toks []token
	var word strings.Builder
	inWord, line, wordLine := false, 1, 1
	flush := func() {
		if inWord {
			toks = append(toks, token{text: word.String(), line: wordLine})
			word.Reset()
			inWord = false
		}
	}
	start := func() {
		if !inWord {
			inWord, wordLine = true, line
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text):
			i++
			if text[i] == '\n' { // a continuation
				line++
				continue
			}
			start()
			word.WriteByte(text[i])
		case c == '\'':
			start()
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("line %d: a single quote that is not closed", line)
			}
			s := text[i+1 : i+1+j]
			line += strings.Count(s, "\n")
			word.WriteString(s)
			i += j + 1
		case c == '"':
			start()
			i++
			for ; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' && i+1 < len(text) && strings.IndexByte("\"\\$`\n", text[i+1]) >= 0 {
					i++
				}
				if text[i] == '\n' {
					line++
				}
				word.WriteByte(text[i])
			}
			if i >= len(text) {
				return nil, fmt.Errorf("line %d: a double quote that is not closed", wordLine)
			}
		case c == '#' && !inWord:
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i--
		case c == '\n':
			flush()
			toks = append(toks, token{text: ";", op: true, line: line})
			line++
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case strings.IndexByte(";&|<>", c) >= 0:
			if c == '>' && inWord && isDigits(word.String()) { // 2>&1, 2>file
				word.Reset()
				inWord = false
			} else {
				flush()
			}
			op := string(c)
			for i+1 < len(text) && strings.IndexByte("&|>", text[i+1]) >= 0 && len(op) < 2 {
				op += string(text[i+1])
				i++
			}
			toks = append(toks, token{text: op, op: true, line: line})
		default:
			start()
			word.WriteByte(c)
		}
	}
	flush()
	return toks, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// statement is one simple command of the text: its words, the line it
// starts on, and what was dropped from it (a pipe's other commands).
type statement struct {
	words   []string
	line    int
	dropped string
}

// statements splits tokens at the separators into simple commands,
// dropping redirections and their targets and the commands after a pipe.
func statements(toks []token) []statement {
	var out []statement
	var cur statement
	piped := false
	end := func() {
		if len(cur.words) > 0 {
			out = append(out, cur)
		}
		cur, piped = statement{}, false
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.op {
			if piped {
				cur.dropped += " " + t.text
				continue
			}
			if len(cur.words) == 0 {
				cur.line = t.line
			}
			cur.words = append(cur.words, t.text)
			continue
		}
		switch {
		case t.text == "|" || t.text == "|&":
			piped = true
			cur.dropped += " |"
		case strings.ContainsAny(t.text, "<>"):
			if !strings.HasSuffix(t.text, "&") && i+1 < len(toks) && !toks[i+1].op {
				i++ // the redirection's file
			} else if i+1 < len(toks) && !toks[i+1].op && isDigits(toks[i+1].text) {
				i++ // >&2
			}
		default: // ; && || &
			end()
		}
	}
	end()
	return out
}

// maxLoopValues bounds a for-loop's values: a study's clients levels are a
// handful, and each value is a line read.
const maxLoopValues = 1000

// command is a statement to map, with the values of the for-loop around
// it, if any.
type command struct {
	statement
	loopVar    string
	loopValues []string
	loopLine   int
}

// commands reads statements as commands, the simple for-loops' bodies each
// with their loop's variable and values. A loop fromcommands cannot read
// (nested, without "in", without "done") comes back as an error for its line.
func commands(sts []statement) ([]command, []unmapped) {
	var out []command
	var bad []unmapped
	for i := 0; i < len(sts); i++ {
		s := sts[i]
		if s.words[0] != "for" {
			out = append(out, command{statement: s})
			continue
		}
		var body []statement
		closed := false
		for i++; i < len(sts); i++ {
			b := sts[i]
			if b.words[0] == "do" {
				b.words = b.words[1:]
			}
			if len(b.words) > 0 && b.words[0] == "done" {
				closed = true
				break
			}
			if len(b.words) > 0 && b.words[0] == "for" {
				bad = append(bad, unmapped{line: b.line, text: strings.Join(b.words, " "), why: "a loop inside a loop: write the inner loop's values out"})
				continue
			}
			if len(b.words) > 0 {
				body = append(body, b)
			}
		}
		why := ""
		switch {
		case len(s.words) < 3 || s.words[2] != "in":
			why = "a for-loop other than `for VAR in V1 V2 …; do …; done`"
		case len(s.words)-3 > maxLoopValues:
			why = fmt.Sprintf("a loop over more than %d values", maxLoopValues)
		case !closed:
			why = "a for-loop without its done"
		}
		if why != "" {
			text := strings.Join(s.words, " ")
			if len(text) > 200 {
				text = text[:200] + "…"
			}
			bad = append(bad, unmapped{line: s.line, text: text, why: why})
			continue
		}
		loop := command{loopVar: s.words[1], loopValues: s.words[3:], loopLine: s.line}
		for _, b := range body {
			c := loop
			c.statement = b
			out = append(out, c)
		}
	}
	return out, bad
}
