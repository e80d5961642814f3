package tpcb

// pgbench's per-transaction log (-l): a line per transaction,
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
//
// time the latency in µs (or "failed", "skipped"), time_epoch and time_us
// when it ended, schedule_lag with a rate, retries with more than one try,
// as pgbench 15 writes it. pgbench writes a file per thread
// (pgbench_log.<pid>, pgbench_log.<pid>.<thread>); fairbench's clients are
// not pinned to threads, so it writes the one file pgbench -j 1 writes.
// Lines go through a buffer to the file as they come: memory stays bounded
// however long the run.

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/fairbench/fairbench/internal/workload"
)

type txLog struct {
	prefix string

	once sync.Once
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	err  error
	line []byte
}

// path is the log's file name, pgbench's.
func (l *txLog) path() string { return l.prefix + "." + strconv.Itoa(os.Getpid()) }

// open creates the file; an error is reported by close.
func (l *txLog) open() {
	l.f, l.err = os.Create(l.path())
	if l.err == nil {
		l.w = bufio.NewWriterSize(l.f, 64<<10)
	}
}

// write is the shape's Log.
func (l *txLog) write(t workload.Logged) {
	l.once.Do(l.open)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return
	}
	b := l.line[:0]
	b = strconv.AppendInt(b, int64(t.Client), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, t.Seq, 10)
	b = append(b, ' ')
	switch {
	case t.Skipped:
		b = append(b, "skipped"...)
	case t.Failed:
		b = append(b, "failed"...)
	default:
		b = strconv.AppendInt(b, t.End.Sub(t.Intended).Microseconds(), 10)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(t.Op), 10)
	end := t.End.UnixMicro()
	b = append(b, ' ')
	b = strconv.AppendInt(b, end/1_000_000, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, end%1_000_000, 10)
	if t.Paced {
		b = append(b, ' ')
		b = strconv.AppendInt(b, t.Began.Sub(t.Intended).Microseconds(), 10)
	}
	if t.MaxTries != 1 {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(max(t.Tries-1, 0)), 10)
	}
	b = append(b, '\n')
	l.line = b
	if _, err := l.w.Write(b); err != nil && l.err == nil {
		l.err = err
	}
}

// close flushes and closes the file, and says what went wrong writing it.
func (l *txLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.err
	}
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f, l.w = nil, nil
	if l.err == nil && err != nil {
		l.err = err
	}
	if l.err != nil {
		return fmt.Errorf("per-transaction log %s: %w", l.path(), l.err)
	}
	return nil
}
