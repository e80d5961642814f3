// Package boundfile is how fairbench reads the files a user names (study
// files, mappings, queries, scripts, property files, job files, corpora, tool
// outputs): only regular files, and those read whole only up to a bound, so
// that /dev/zero, a FIFO, a directory or a 2 GB file given by mistake is
// refused in one line naming the file, unread, instead of blocking or
// filling memory.
package boundfile

import (
	"fmt"
	"io"
	"os"
)

// Open opens the regular file at path for reading, refusing anything else
// unopened (a FIFO would block the open until a writer came). For files
// read as streams (corpora, long tool outputs), whose size is their own.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced between the two looks.
	if fi, err = f.Stat(); err == nil {
		err = regular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the regular file at path whole, refusing it unread when it is
// larger than limit bytes (what: what the file is, for the message, as in
// "a pgbench script"), or when it grows past limit while read.
func Read(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func() error {
		return fmt.Errorf("%s: larger than %s, more than %s can be: is this the right file?", path, size(limit), what)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, tooLarge()
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, tooLarge()
	}
	return b, nil
}

// regular refuses what is not a regular file, saying what it is.
func regular(path string, fi os.FileInfo) error {
	m := fi.Mode()
	var is string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		is = "a directory"
	case m&os.ModeNamedPipe != 0:
		is = "a FIFO (named pipe)"
	case m&os.ModeSocket != 0:
		is = "a socket"
	case m&os.ModeDevice != 0:
		is = "a device"
	default:
		is = "not a regular file"
	}
	return fmt.Errorf("%s: %s; give a regular file", path, is)
}

// size prints a bound in the largest binary unit that divides it.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
