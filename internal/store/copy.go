package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// CopyCounts says what Copy did.
type CopyCounts struct {
	Runs, RunsSkipped       int // runs copied, and skipped as already in the destination
	Studies, StudiesSkipped int // study files
	Files, FilesSkipped     int // imported-file records
}

// copyBatch is how many runs Copy loads at a time.
const copyBatch = 100

// Copy copies every study file, run (with its operations and series) and
// imported-file record of from into to, either store being a file or a
// PostgreSQL schema. Each run is written in a transaction of its own, so an
// interrupted copy can be repeated: what to already holds is skipped.
//
// A run is identified by its study hash, cell key, target, repetition and
// start and end times (runKeyOf); run ids are not kept, the destination numbers
// the runs it receives. A study file is identified by its content hash, an
// imported file by the hash of its content; records already present are kept
// as they are.
func Copy(from, to *Store) (CopyCounts, error) {
	var c CopyCounts
	studies, err := from.studies()
	if err != nil {
		return c, err
	}
	for _, st := range studies {
		added, err := to.saveStudy(st)
		if err != nil {
			return c, err
		}
		if added {
			c.Studies++
		} else {
			c.StudiesSkipped++
		}
	}
	have, err := to.runKeys()
	if err != nil {
		return c, err
	}
	ids, err := from.runIDs()
	if err != nil {
		return c, err
	}
	for len(ids) > 0 {
		n := min(copyBatch, len(ids))
		runs, err := from.Runs(Filter{IDs: ids[:n]})
		if err != nil {
			return c, err
		}
		ids = ids[n:]
		for _, r := range runs {
			k := runKeyOf(r)
			if have[k] {
				c.RunsSkipped++
				continue
			}
			if err := to.AppendRuns([]*result.Run{r}, nil); err != nil {
				return c, fmt.Errorf("copying %s: %w", runName(r), err)
			}
			have[k] = true
			c.Runs++
		}
	}
	files, err := from.importedFiles()
	if err != nil {
		return c, err
	}
	for _, f := range files {
		added, err := to.addImported(f)
		if err != nil {
			return c, err
		}
		if added {
			c.Files++
		} else {
			c.FilesSkipped++
		}
	}
	return c, nil
}

// runKeyOf identifies a run across stores: study hash, cell key, target,
// repetition, and start and end times to the nanosecond.
func runKeyOf(r *result.Run) string {
	return runKey(r.StudyHash, r.CellKey, r.Target, int64(r.Repetition), r.StartedAt, r.EndedAt)
}

func runKey(hash, cell, target string, rep int64, started, ended time.Time) string {
	t := func(x time.Time) string {
		if x.IsZero() {
			return ""
		}
		return formatTime(x)
	}
	return strings.Join([]string{hash, cell, target, strconv.FormatInt(rep, 10), t(started), t(ended)}, "\x00")
}

// runKeys returns the key (runKeyOf) of every run in the store.
func (s *Store) runKeys() (map[string]bool, error) {
	rows, err := s.db.Query("SELECT study_hash, cell_key, target, repetition, started_at, ended_at FROM runs")
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading runs: %w", s.kind, s.path, err)
	}
	defer rows.Close()
	keys := map[string]bool{}
	for rows.Next() {
		var hash, cell, target string
		var rep any
		var started, ended sql.NullString
		if err := rows.Scan(&hash, &cell, &target, &rep, &started, &ended); err != nil {
			return nil, fmt.Errorf("%s %s: reading runs: %w", s.kind, s.path, err)
		}
		n, err := asInt(rep)
		if err != nil {
			continue // a run that does not decode is never copied either
		}
		st, err1 := parseTime(started)
		en, err2 := parseTime(ended)
		if err1 != nil || err2 != nil {
			continue
		}
		keys[runKey(hash, cell, target, n, st, en)] = true
	}
	return keys, rows.Err()
}

// runIDs returns the ids of every run, in order.
func (s *Store) runIDs() ([]int64, error) {
	rows, err := s.db.Query("SELECT id FROM runs ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading runs: %w", s.kind, s.path, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("%s %s: reading runs: %w", s.kind, s.path, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// study is a stored study file.
type study struct {
	hash, name, file, savedAt string
	content                   []byte
}

func (s *Store) studies() ([]study, error) {
	rows, err := s.db.Query("SELECT hash, name, file, content, saved_at FROM studies ORDER BY saved_at, hash")
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading studies: %w", s.kind, s.path, err)
	}
	defer rows.Close()
	var out []study
	for rows.Next() {
		var st study
		var content any
		if err := rows.Scan(&st.hash, &st.name, &st.file, &content, &st.savedAt); err != nil {
			return nil, fmt.Errorf("%s %s: reading studies: %w", s.kind, s.path, err)
		}
		st.content = asBytes(content)
		if st.content == nil {
			st.content = []byte{}
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// saveStudy stores a study file as it was saved, unless its hash is there.
func (s *Store) saveStudy(st study) (bool, error) {
	res, err := s.db.Exec(s.q("INSERT INTO studies (hash, name, file, content, saved_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING"),
		st.hash, st.name, st.file, st.content, st.savedAt)
	if err != nil {
		return false, fmt.Errorf("%s %s: saving study %s: %w", s.kind, s.path, st.name, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s *Store) importedFiles() ([]ImportedFile, error) {
	rows, err := s.db.Query("SELECT hash FROM imported_files ORDER BY imported_at, hash")
	if err != nil {
		return nil, fmt.Errorf("%s %s: imported files: %w", s.kind, s.path, err)
	}
	var hashes []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s %s: imported files: %w", s.kind, s.path, err)
		}
		hashes = append(hashes, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []ImportedFile
	for _, h := range hashes {
		f, ok, err := s.Imported(h)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, *f)
		}
	}
	return out, nil
}

// addImported records an imported file unless its hash is there.
func (s *Store) addImported(f ImportedFile) (bool, error) {
	res, err := s.db.Exec(s.q("INSERT INTO imported_files (hash, name, study_name, target, runs, imported_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING"),
		f.Hash, f.Name, f.StudyName, f.Target, f.Runs, formatTime(f.ImportedAt))
	if err != nil {
		return false, fmt.Errorf("%s %s: recording imported file %s: %w", s.kind, s.path, f.Name, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// StudySource returns the study file a run was made from, as SaveStudy kept
// it (secrets replaced); ok is false when the store has no study of that hash.
func (s *Store) StudySource(hash string) (content []byte, ok bool, err error) {
	var c any
	err = s.db.QueryRow(s.q("SELECT content FROM studies WHERE hash = ?"), hash).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s %s: reading study %s: %w", s.kind, s.path, hash, err)
	}
	return asBytes(c), true, nil
}
