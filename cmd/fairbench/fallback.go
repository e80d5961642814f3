package main

// Fallback files: a finished run the results file refuses (read-only, locked
// past the busy timeout, disk full) is written as JSON beside it, and
// `fairbench import` stores the runs of such a file back as they were.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// fallbackFormat marks a fallback file; import recognises it by this field.
const fallbackFormat = "fairbench-unsaved-runs"

type fallbackFile struct {
	Format  string        `json:"format"`
	Version int           `json:"version"`
	Results string        `json:"results"` // the results file the runs were meant for
	Reason  string        `json:"reason"`  // why it refused the first of them
	Study   *savedStudy   `json:"study,omitempty"`
	Runs    []*result.Run `json:"runs"`
}

// savedStudy is the study file the runs came from (secrets already redacted),
// for a results file that does not hold it yet.
type savedStudy struct {
	Hash, Name, File string
	Content          []byte
}

// saveFallback adds r to this process's fallback file, beside the results
// file (or in the temporary directory when that directory refuses it too), and
// returns its path. The file is rewritten whole through a rename, so it is
// never half-written.
func (c *collectingSink) saveFallback(r *result.Run, cause error) (string, error) {
	c.unsaved = append(c.unsaved, r)
	f := fallbackFile{Format: fallbackFormat, Version: 1, Results: c.results,
		Reason: redact.Scrub(cause.Error()), Runs: c.unsaved, Study: c.study}
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		c.unsaved = c.unsaved[:len(c.unsaved)-1]
		return "", err
	}
	if c.fallback != "" {
		if err := writeAtomically(c.fallback, data); err == nil {
			return c.fallback, nil
		}
	}
	base, dirs := filepath.Base(c.results), []string{filepath.Dir(c.results), os.TempDir()}
	if store.IsURL(c.results) {
		// A results store at a URL has no directory: the current one, then the temporary one.
		base, dirs = "fairbench-results", []string{".", os.TempDir()}
	}
	name := base + ".unsaved-" + time.Now().UTC().Format("20060102T150405Z") + ".json"
	var errs []error
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		if err := writeAtomically(p, data); err != nil {
			errs = append(errs, err)
			continue
		}
		c.fallback = p
		return p, nil
	}
	c.unsaved = c.unsaved[:len(c.unsaved)-1]
	return "", errors.Join(errs...)
}

func writeAtomically(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fairbench-unsaved-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// maxFallbackFile bounds a fallback file read whole: a long run's every
// second with its histograms is a few hundred MB.
const maxFallbackFile = 4 << 30

// readFallback returns the file's fallback runs, or ok=false when it is not a
// fallback file.
func readFallback(path string) (f fallbackFile, ok bool, err error) {
	h, err := boundfile.Open(path) // not a regular file: import says so
	if err != nil {
		return f, false, nil
	}
	defer h.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(h, head)
	if !bytes.Contains(head[:n], []byte(`"format": "`+fallbackFormat+`"`)) {
		return f, false, nil
	}
	data, err := boundfile.Read(path, maxFallbackFile, "a fairbench fallback file")
	if err != nil {
		return f, true, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, true, fmt.Errorf("%s: a fairbench fallback file that does not decode: %w", path, err)
	}
	if f.Version != 1 {
		return f, true, fmt.Errorf("%s: fallback file version %d, this fairbench reads version 1", path, f.Version)
	}
	return f, true, nil
}

// importFallbacks stores the runs of fallback files as they were measured
// (their own target, study and cell; --target is not needed). It handles the
// arguments only when every one is a fallback file; a run already in the
// results file (same study, cell, target and start) is not stored twice.
func importFallbacks(cmd *cobra.Command, results string, args []string) (handled bool, err error) {
	var files []fallbackFile
	for _, a := range args {
		f, ok, err := readFallback(a)
		if !ok {
			if len(files) > 0 {
				return true, fmt.Errorf("%s is not a fairbench fallback file: import fallback files on their own", a)
			}
			return false, nil
		}
		if err != nil {
			return true, err
		}
		files = append(files, f)
	}
	s, err := store.Open(results)
	if err != nil {
		return true, err
	}
	defer s.Close()
	have, err := s.Runs(store.Filter{})
	if err != nil {
		return true, err
	}
	key := func(r *result.Run) string {
		return r.StudyHash + "|" + r.StudyName + "|" + r.Target + "|" + r.CellKey + "|" + r.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	seen := map[string]bool{}
	for _, r := range have {
		seen[key(r)] = true
	}
	stored, skipped := 0, 0
	for i, f := range files {
		if st := f.Study; st != nil && st.Hash != "" {
			if err := s.SaveStudy(st.Hash, st.Name, st.File, st.Content); err != nil {
				return true, err
			}
		}
		for _, r := range f.Runs {
			if seen[key(r)] {
				skipped++
				continue
			}
			r.ID = 0
			if _, err := s.AppendRun(r); err != nil {
				return true, fmt.Errorf("%s: storing run of cell %q: %w (%d runs stored before it)", args[i], r.CellKey, err, stored)
			}
			seen[key(r)] = true
			stored++
		}
	}
	msg := fmt.Sprintf("%d runs from fallback files stored in %s", stored, s.Path())
	if skipped > 0 {
		msg += fmt.Sprintf(" (%d already there, skipped)", skipped)
	}
	fmt.Fprintln(cmd.ErrOrStderr(), msg)
	return true, nil
}
