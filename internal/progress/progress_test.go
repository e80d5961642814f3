package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lines is a writer that keeps what it is given and signals each write.
type lines struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func newLines() *lines { return &lines{wrote: make(chan struct{}, 1000)} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	select {
	case l.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// await waits for a write whose text, all told, contains want.
func (l *lines) await(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(l.String(), want) {
		select {
		case <-l.wrote:
		case <-deadline:
			t.Fatalf("no %q was written; got %q", want, l.String())
		}
	}
}

func fast(r *Reporter) *Reporter {
	r.First, r.Every = time.Millisecond, time.Millisecond
	return r
}

func TestPlainLinesWhileTheTaskRuns(t *testing.T) {
	w := newLines()
	r := fast(New(w, false))
	task := r.Start("load: hits", 1000, "rows")
	task.Add(250)
	w.await(t, "load: hits: 250 of 1,000 rows (25%)")
	task.End()
	out := w.String()
	if strings.Contains(out, "\r") {
		t.Errorf("plain lines hold a carriage return: %q", out)
	}
	if !strings.Contains(out, "rows/s") || !strings.Contains(out, " left") {
		t.Errorf("no rate or time left in %q", out)
	}
	n := len(out)
	time.Sleep(20 * time.Millisecond) // an update after End would show here
	if len(w.String()) != n {
		t.Errorf("the task printed after End: %q", w.String()[n:])
	}
}

func TestTerminalRedrawsInPlaceAndClearsForMessages(t *testing.T) {
	w := newLines()
	r := fast(New(w, true))
	task := r.Start("load: hits", 0, "rows")
	task.Add(7)
	w.await(t, "\rload: hits: 7 rows")
	if _, err := r.Write([]byte("a message\n")); err != nil {
		t.Fatal(err)
	}
	task.End()
	out := w.String()
	i := strings.Index(out, "a message\n")
	if i < 1 || out[i-1] != '\r' {
		t.Errorf("the message does not start on a cleared line: %q", out)
	}
	if strings.Contains(out, "\n\r") && !strings.HasSuffix(out, "\r") {
		t.Errorf("the progress line is left on the terminal after End: %q", out)
	}
}

func TestTimedTaskShowsTimeLeftAndDetail(t *testing.T) {
	task := &Task{r: New(&bytes.Buffer{}, false), what: "measuring", timed: time.Minute, start: time.Unix(0, 0)}
	task.Detail("1,234.5 ops/s")
	got := task.line(time.Unix(15, 0))
	want := "measuring: 15 s of 1 min 00 s (25%), 1,234.5 ops/s, 45 s left"
	if got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}

func TestNilReporterPrintsNothing(t *testing.T) {
	var r *Reporter // --quiet
	task := r.Start("load", 10, "rows")
	task.Add(5)
	task.Detail("x")
	task.End()
	if n, err := r.Write([]byte("message")); n != 7 || err != nil {
		t.Errorf("Write on a nil Reporter = %d, %v", n, err)
	}
	if ForFile(nil, true) != nil {
		t.Error("ForFile(quiet) is not the nil Reporter")
	}
}

// A name that carries control characters (a target's, a path's) reaches
// the terminal escaped, in messages and in the redrawn line: only the
// Reporter's own \r moves the cursor.
func TestNamesControlCharactersEscaped(t *testing.T) {
	w := newLines()
	r := fast(New(w, true))
	task := r.Start("load: red\x1b[31m\u202eback\rover", 0, "rows")
	task.Add(7)
	w.await(t, `load: red\x1b[31m\u202eback\rover: 7 rows`)
	if _, err := r.Write([]byte("target up\x1b[2A\x1b[K failed\n")); err != nil {
		t.Fatal(err)
	}
	task.End()
	out := w.String()
	if !strings.Contains(out, `target up\x1b[2A\x1b[K failed`+"\n") {
		t.Errorf("the message is not escaped: %q", out)
	}
	if strings.ContainsAny(out, "\x1b\u202e") || strings.Contains(out, "back\rover") {
		t.Errorf("a control character reached the terminal raw: %q", out)
	}
}
