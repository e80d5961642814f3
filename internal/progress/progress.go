// Package progress shows how far a long phase has got (a load, an index
// build, a measured run) while it works: on a terminal one line redrawn in
// place every second with the count, the rate and the time left; elsewhere
// (a pipe, a log file) a plain line every few seconds; nothing at all from a
// nil Reporter (--quiet). Phases feed a Task with counters; the Reporter
// alone decides what is printed and when.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/numfmt"
)

// Intervals between updates: a terminal line costs nothing to redraw; plain
// lines accumulate in a log, so they come less often after the first.
const (
	terminalEvery = time.Second
	plainFirst    = time.Second
	plainEvery    = 5 * time.Second
)

// Reporter prints the progress of tasks to one writer. It is also the
// io.Writer of the phase messages around them: on a terminal a message first
// clears the progress line, which the next update redraws. A nil *Reporter
// prints nothing and its tasks count for no one.
type Reporter struct {
	w        io.Writer
	terminal bool
	width    int // the terminal's columns; 0: unknown
	// First and Every are the delays before the first update and between
	// the next ones (tests shorten them).
	First, Every time.Duration

	mu    sync.Mutex
	shown int            // width of the progress line on the terminal; 0: none shown
	msg   *escape.Writer // messages to w, escaped
}

// New reports to w; terminal says that w is a terminal, where the progress
// line is redrawn in place (\r) rather than repeated.
func New(w io.Writer, terminal bool) *Reporter {
	r := &Reporter{w: w, terminal: terminal, First: plainFirst, Every: plainEvery}
	if terminal {
		r.First, r.Every = terminalEvery, terminalEvery
	}
	return r
}

// ForFile reports to f, redrawing in place when f is a terminal; quiet gives
// the nil Reporter, which prints nothing.
func ForFile(f *os.File, quiet bool) *Reporter {
	if quiet {
		return nil
	}
	fd := int(f.Fd())
	r := New(f, term.IsTerminal(fd))
	if r.terminal {
		r.width, _, _ = term.GetSize(fd)
	}
	return r
}

// Write writes a message, on a line of its own even while a progress line
// is shown. A nil Reporter discards it. Messages carry names from study
// and results files, so their control characters are escaped
// (escape.TerminalText): only the Reporter moves the cursor.
func (r *Reporter) Write(p []byte) (int, error) {
	if r == nil {
		return len(p), nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	if r.msg == nil {
		r.msg = escape.NewWriter(r.w, escape.TerminalText)
	}
	return r.msg.Write(p)
}

// clearLocked erases the progress line from the terminal; r.mu is held.
func (r *Reporter) clearLocked() {
	if r.shown > 0 {
		fmt.Fprintf(r.w, "\r%s\r", strings.Repeat(" ", r.shown))
		r.shown = 0
	}
}

// show prints one update of a task's line.
func (r *Reporter) show(line string) {
	line = escape.Terminal(line)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.terminal {
		fmt.Fprintln(r.w, line)
		return
	}
	// A line wider than the terminal would wrap, and \r would redraw only
	// its last row.
	if rs := []rune(line); r.width > 1 && len(rs) >= r.width {
		line = string(rs[:r.width-1])
	}
	pad := ""
	if n := len([]rune(line)); n < r.shown {
		pad = strings.Repeat(" ", r.shown-n)
	}
	fmt.Fprintf(r.w, "\r%s%s", line, pad)
	r.shown = len([]rune(line))
}

// Task is one phase being counted. Its methods are safe from any goroutine,
// and do nothing on a nil *Task (the task of a nil Reporter).
type Task struct {
	r      *Reporter
	what   string
	unit   string
	timed  time.Duration // a phase of a known duration: its progress is time
	start  time.Time
	done   atomic.Int64
	total  atomic.Int64
	detail atomic.Pointer[string]
	stop   chan struct{}
	ended  sync.WaitGroup
	once   sync.Once
}

// Start begins counting a phase that does total units of work (0: a total
// not known in advance; the line then shows no share and no time left).
// what names the phase ("clickbench: loading hits"), unit its units
// ("rows"). End the task when the phase ends, however it ends.
func (r *Reporter) Start(what string, total int64, unit string) *Task {
	if r == nil {
		return nil
	}
	t := &Task{r: r, what: what, unit: unit, start: time.Now(), stop: make(chan struct{})}
	t.total.Store(total)
	t.run()
	return t
}

// StartTimed begins a phase that lasts d (a measured run): its line shows
// the time elapsed and left, and what Detail last said (the rate of
// operations). d 0: a phase that ends when its work does, of unknown length.
func (r *Reporter) StartTimed(what string, d time.Duration) *Task {
	if r == nil {
		return nil
	}
	t := &Task{r: r, what: what, timed: d, start: time.Now(), stop: make(chan struct{})}
	t.run()
	return t
}

// run updates the task's line until End.
func (t *Task) run() {
	t.ended.Add(1)
	go func() {
		defer t.ended.Done()
		timer := time.NewTimer(t.r.First)
		defer timer.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-timer.C:
				t.r.show(t.line(time.Now()))
				timer.Reset(t.r.Every)
			}
		}
	}()
}

// Add counts n more units done.
func (t *Task) Add(n int64) {
	if t != nil {
		t.done.Add(n)
	}
}

// setTotal sets the units the phase does, when it learns them late.
func (t *Task) setTotal(n int64) {
	if t != nil {
		t.total.Store(n)
	}
}

// Detail sets what a timed task's line says besides the time ("12,345
// ops/s").
func (t *Task) Detail(s string) {
	if t != nil {
		t.detail.Store(&s)
	}
}

// End stops the task's updates and, on a terminal, erases its line: what
// the phase achieved is the caller's to say.
func (t *Task) End() {
	if t == nil {
		return
	}
	t.once.Do(func() {
		close(t.stop)
		t.ended.Wait()
		t.r.mu.Lock()
		t.r.clearLocked()
		t.r.mu.Unlock()
	})
}

// line is the task's progress line at now: the count, its share of the
// total, the rate and the time left at that rate.
func (t *Task) line(now time.Time) string {
	elapsed := now.Sub(t.start)
	parts := []string{}
	if t.timed > 0 || (t.unit == "" && t.total.Load() == 0) {
		s := seconds(elapsed)
		if t.timed > 0 {
			s = fmt.Sprintf("%s of %s (%.0f%%)", s, seconds(t.timed), 100*min(1, elapsed.Seconds()/t.timed.Seconds()))
		}
		parts = append(parts, s)
		if d := t.detail.Load(); d != nil && *d != "" {
			parts = append(parts, *d)
		}
		if t.timed > elapsed {
			parts = append(parts, seconds(t.timed-elapsed)+" left")
		}
		return t.what + ": " + strings.Join(parts, ", ")
	}
	done, total := t.done.Load(), t.total.Load()
	count := numfmt.Whole(done) + " " + t.unit
	if total > 0 {
		count = fmt.Sprintf("%s of %s %s (%.0f%%)", numfmt.Whole(done), numfmt.Whole(total), t.unit, 100*min(1, float64(done)/float64(total)))
	}
	parts = append(parts, count)
	if secs := elapsed.Seconds(); secs > 0 && done > 0 {
		rate := float64(done) / secs
		parts = append(parts, numfmt.Whole(int64(rate+0.5))+" "+t.unit+"/s")
		if total > done {
			parts = append(parts, seconds(time.Duration(float64(total-done)/rate*float64(time.Second)))+" left")
		}
	}
	if d := t.detail.Load(); d != nil && *d != "" {
		parts = append(parts, *d)
	}
	return t.what + ": " + strings.Join(parts, ", ")
}

// seconds formats a duration to the second: "42 s", "3 min 05 s", "1 h 02 min".
func seconds(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d min", s/3600, s%3600/60)
}
