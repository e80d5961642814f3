package adapter

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fairbench/fairbench/internal/boundfile"
)

// detectPrefix is how much of a file detection looks at: every tool names
// itself in the first lines it prints (go-tpc and go-ycsb after their load
// progress), so a file that is no tool's output is refused having read no
// more than this.
const detectPrefix = 256 << 10

// maxOutput bounds a tool's main output, which its parser reads whole (the
// JSON formats need the whole document): real outputs are kilobytes to a few
// megabytes, a memtier --print-all-runs JSON of hour-long runs some tens. A
// variable so that a test can lower it.
var maxOutput int64 = 128 << 20

// detectIn returns the tool whose output text is, judged from its prefix.
func detectIn(text string) *Tool {
	h := head(text, detectPrefix)
	for _, t := range tools {
		if t.Detect(h) {
			return t
		}
	}
	return nil
}

// logOf returns the tool whose side log (pgbench -l, fio's logs, HammerDB's
// profile) the file named name is, judged from its name and prefix.
func logOf(name, text string) *Tool {
	h := head(text, detectPrefix)
	for _, t := range tools {
		if t.IsLog != nil && t.IsLog(filepath.Base(name), h) {
			return t
		}
	}
	return nil
}

// ReadFile reads the file at path for import; see Read.
func ReadFile(path string) (File, error) {
	f, err := boundfile.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	return read(path, f, path)
}

// Read reads one input file from r. Its first detectPrefix bytes say what it
// is: a file that is neither a tool's output nor a tool's side log is refused
// at once, having read no more. A main output is then read on up to
// maxOutput bytes, its parser needing it whole, and refused beyond that
// without being read further; a side log (pgbench's per-transaction log can
// legitimately be gigabytes) is read whole. ReadFile streams the outputs of
// the tools that parse from a reader instead (see File.streamed).
func Read(name string, r io.Reader) (File, error) { return read(name, r, "") }

// read is Read; a main output at path (when given) whose tool parses from a
// reader is streamed: its File holds the prefix and the path, and its parser
// reads the file when import parses it.
func read(name string, r io.Reader, path string) (File, error) {
	prefix := make([]byte, detectPrefix)
	n, err := io.ReadFull(r, prefix)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	prefix = prefix[:n]
	size := int64(-1)
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	text := string(prefix)
	if n < detectPrefix { // the whole file
		return File{Name: name, Text: text}, nil
	}
	// the text read whole: one allocation when the file's size is known
	var b strings.Builder
	whole := func(limit int64) *strings.Builder {
		b.Grow(int(max(min(size, limit), 0)))
		b.Write(prefix)
		return &b
	}
	if logOf(name, text) != nil {
		if _, err := io.Copy(whole(math.MaxInt), r); err != nil {
			return File{}, fmt.Errorf("%s: %w", name, err)
		}
		return File{Name: name, Text: b.String()}, nil
	}
	t := detectIn(text)
	if t == nil {
		return File{}, fmt.Errorf("%s: not an output fairbench can read (judged from its first %d KiB); supported: %s", name, detectPrefix>>10, Supported())
	}
	if t.ParseReader != nil && path != "" && size >= 0 {
		return File{Name: name, Text: text, path: path, size: size}, nil
	}
	whole(maxOutput + 1)
	if _, err := io.Copy(&b, io.LimitReader(r, maxOutput+1-int64(n))); err != nil {
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	if int64(b.Len()) > maxOutput {
		return File{}, fmt.Errorf("%s: larger than %d MiB, more than any %s output (its parser reads the file whole): not read further; is it the right file?", name, maxOutput>>20, t.Name)
	}
	return File{Name: name, Text: b.String()}, nil
}
