package store

// What a study bundle (internal/bundle) reads from a store and writes into
// one: the same records Copy copies, through the same functions.

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// OpenTemp creates an empty results file of its own in a private temporary
// directory, for a store made from something else (a bundle): Path returns
// shownAs, so that reports and messages name what the user gave, and Close
// removes the file and its directory.
func OpenTemp(shownAs string) (*Store, error) {
	dir, err := os.MkdirTemp("", "fairbench-results-*")
	if err != nil {
		return nil, fmt.Errorf("%s: a temporary results file: %w", shownAs, err)
	}
	s, err := Open(filepath.Join(dir, "results.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: a temporary results file: %w", shownAs, err)
	}
	s.path = shownAs
	s.onClose = func() error { return os.RemoveAll(dir) }
	return s, nil
}

// StudyFile is a study file as the store keeps it: secrets already
// replaced (SaveStudy), identified by the hash of the file as it was run.
type StudyFile struct {
	Hash, Name, File string
	Content          []byte
	SavedAt          time.Time
}

// StudyFiles returns the stored study files of the given hashes (every one
// when hashes is empty), oldest first.
func (s *Store) StudyFiles(hashes ...string) ([]StudyFile, error) {
	all, err := s.studies()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, h := range hashes {
		want[h] = true
	}
	var out []StudyFile
	for _, st := range all {
		if len(want) > 0 && !want[st.hash] {
			continue
		}
		at, err := parseTime(sql.NullString{String: st.savedAt, Valid: true})
		if err != nil {
			return nil, fmt.Errorf("%s %s: study %s: saved_at %q: %w", s.kind, s.path, st.name, st.savedAt, err)
		}
		out = append(out, StudyFile{Hash: st.hash, Name: st.name, File: st.file, Content: st.content, SavedAt: at})
	}
	return out, nil
}

// AddStudyFile stores a study file as it was saved, unless its hash is
// there; added says whether it was stored.
func (s *Store) AddStudyFile(f StudyFile) (added bool, err error) {
	content := f.Content
	if content == nil {
		content = []byte{}
	}
	return s.saveStudy(study{hash: f.Hash, name: f.Name, file: f.File, content: content, savedAt: formatTime(f.SavedAt)})
}

// ImportedFiles returns the records of the files import stored, oldest first.
func (s *Store) ImportedFiles() ([]ImportedFile, error) { return s.importedFiles() }

// AddImportedFile records an imported file unless its hash is there.
func (s *Store) AddImportedFile(f ImportedFile) (added bool, err error) { return s.addImported(f) }

// RestoreRuns writes runs as AppendRuns does, except that each keeps the id
// it carries: a store made from a bundle numbers its runs as the store the
// bundle was exported from did, so that a report made from it names the same
// runs. Only into a store of its own (OpenTemp): ids already taken fail.
func (s *Store) RestoreRuns(runs []*result.Run) error {
	if s.pg != nil {
		return errors.New("runs keep their ids only in a results file of their own")
	}
	for _, r := range runs {
		if r.ID <= 0 {
			return fmt.Errorf("%s: run of target %s, cell %s has no id to keep", s.path, r.Target, r.CellKey)
		}
	}
	return s.appendRuns(runs, nil, true)
}
