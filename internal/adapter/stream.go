package adapter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/fairbench/fairbench/internal/result"
)

// Streamed outputs: an output of a tool with ParseReader that is larger
// than detectPrefix is not read into memory; its parser reads it from its
// file line by line, while shapeReader notes what Parse checks of a text
// (how it ends, where the tool's Once line appears), and Hash reads it
// again. Memory then grows with the runs parsed, not with the file.

// shapeReader passes a stream through, noting its outputShape.
type shapeReader struct {
	r     io.Reader
	name  string
	once  *regexp.Regexp
	n     int64  // bytes read
	lines int    // line breaks read
	line  []byte // the start of the line being read, up to shapeKeep bytes
	long  bool   // the line being read is longer than line
	shape outputShape
}

// shapeKeep is how much of a line shapeReader keeps: enough for a tool's
// Once pattern and for cutShort's quote of a last line.
const shapeKeep = 256

func (s *shapeReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.keep(b)
			break
		}
		s.keep(b[:i])
		s.endLine()
		b = b[i+1:]
	}
	return n, err
}

func (s *shapeReader) keep(b []byte) {
	room := shapeKeep - len(s.line)
	if len(b) > room {
		b, s.long = b[:room], true
	}
	s.line = append(s.line, b...)
}

// endLine checks the line just read against the tool's Once.
func (s *shapeReader) endLine() {
	if s.once != nil && len(s.shape.once) < 2 && s.once.Match(s.line) {
		s.shape.once = append(s.shape.once, s.lines+1)
	}
	s.lines++
	s.line, s.long = s.line[:0], false
}

// finish reads the rest of the stream and returns its shape, as textShape
// gives it of the whole text.
func (s *shapeReader) finish() (outputShape, error) {
	if _, err := io.Copy(io.Discard, s); err != nil {
		return outputShape{}, fmt.Errorf("%s: %w", s.name, err)
	}
	s.shape.lines = s.lines + 1
	if len(s.line) > 0 || s.long { // the last line ends without a line break
		if s.once != nil && len(s.shape.once) < 2 && s.once.Match(s.line) {
			s.shape.once = append(s.shape.once, s.lines+1)
		}
		last := string(s.line)
		if len(last) > 40 {
			last = last[:40] + "…"
		}
		s.shape.cut = &ParseError{File: s.name, Line: s.shape.lines, Msg: fmt.Sprintf("the last line %q ends without a line break: the output is truncated", last)}
	}
	return s.shape, nil
}

// parseStreamed parses a streamed output from its file.
func parseStreamed(f File) (*Tool, []*result.Run, error) {
	t, err := detected(f.Name, f.Text)
	if err != nil {
		return t, nil, err
	}
	in, err := os.Open(f.path)
	if err != nil {
		return t, nil, err
	}
	defer in.Close()
	sr := &shapeReader{r: in, name: f.Name, once: t.Once}
	runs, err := t.ParseReader(f.Name, sr)
	runs, err = settle(t, f.Name, runs, err, func() (outputShape, error) {
		shape, err := sr.finish()
		if err == nil && sr.n != f.size {
			err = fmt.Errorf("%s: %d bytes when opened, %d when read: the file changed while it was imported", f.Name, f.size, sr.n)
		}
		return shape, err
	})
	return t, runs, err
}

// Hash identifies an output with its side logs by content, whatever the
// files are named: the SHA-256 of each file's length and text, the main
// output first. A streamed output is read from its file again.
func (in Input) Hash() (string, error) {
	h := sha256.New()
	if in.Main.streamed() {
		f, err := os.Open(in.Main.path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		fmt.Fprintf(h, "%d\n", in.Main.size)
		n, err := io.Copy(h, f)
		if err != nil {
			return "", fmt.Errorf("%s: %w", in.Main.Name, err)
		}
		if n != in.Main.size {
			return "", fmt.Errorf("%s: %d bytes when opened, %d when read: the file changed while it was imported", in.Main.Name, in.Main.size, n)
		}
	} else {
		fmt.Fprintf(h, "%d\n%s", len(in.Main.Text), in.Main.Text)
	}
	for _, l := range in.Logs {
		fmt.Fprintf(h, "%d\n%s", len(l.Text), l.Text)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
