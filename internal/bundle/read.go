package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// Bounds on what a bundle may be. A 24-cell study is about 1 MB (docs/
// commands/export.md); these leave room for studies a thousand times that
// while refusing a zip bomb or a file given by mistake before it fills
// memory or the disk.
const (
	MaxFile     = 1 << 30   // the bundle file, or the HTML report carrying one
	MaxPart     = 256 << 20 // one part, decompressed
	MaxTotal    = 4 << 30   // every part together, decompressed
	MaxParts    = 100_000
	maxManifest = 16 << 20 // manifest.json, decompressed
)

// runBatch is how many runs go into the temporary store per transaction.
const runBatch = 64

// Kind is what a file given as --results is.
type Kind int

const (
	NotBundle Kind = iota // anything else: a results file, or not ours
	Zip                   // a bundle (.fbz)
	HTML                  // an HTML page, perhaps a report carrying a bundle
)

// zipMagic opens every zip file with a local file header.
var zipMagic = []byte("PK\x03\x04")

// Detect says from its first bytes whether path is a bundle or an HTML page.
// A file that cannot be read is NotBundle: the results store's own open
// then says what is wrong with it.
func Detect(path string) Kind {
	f, err := boundfile.Open(path)
	if err != nil {
		return NotBundle
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, zipMagic):
		return Zip
	case looksLikeHTML(head):
		return HTML
	}
	return NotBundle
}

func looksLikeHTML(head []byte) bool {
	h := strings.ToLower(strings.TrimSpace(string(head)))
	return strings.HasPrefix(h, "<!--") || strings.HasPrefix(h, "<!doctype html") || strings.HasPrefix(h, "<html")
}

// Open reads the bundle at path (a .fbz file, or an HTML report carrying
// one), verifies it whole, and returns a store over a private temporary
// results file holding its content, removed when the store is closed. The
// store's Path is path, and its runs keep the ids they had.
func Open(path string) (*store.Store, *Manifest, error) {
	data, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	b, err := verify(path, data)
	if err != nil {
		return nil, nil, err
	}
	s, err := store.OpenTemp(path)
	if err != nil {
		return nil, nil, err
	}
	if err := b.load(s); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, b.manifest, nil
}

// read returns the zip archive's bytes: the file's, or those an HTML report
// carries.
func read(path string) ([]byte, error) {
	switch Detect(path) {
	case Zip:
		return boundfile.Read(path, MaxFile, "a fairbench bundle")
	case HTML:
		page, err := boundfile.Read(path, MaxFile, "an HTML report carrying its data")
		if err != nil {
			return nil, err
		}
		return Extract(path, page)
	}
	return nil, fmt.Errorf("%s: not a fairbench bundle (no zip archive, no HTML report)", path)
}

// opened is a verified bundle.
type opened struct {
	path     string
	manifest *Manifest
	files    map[string]*zip.File
}

// verify checks the archive against its manifest: the format and its
// version, the bounds, that every file is a part the manifest lists and
// every listed part is there, and each part's size and SHA-256.
func verify(path string, data []byte) (*opened, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable bundle (%v): the file is damaged or not a fairbench export", path, err)
	}
	if len(zr.File) > MaxParts+1 {
		return nil, fmt.Errorf("%s: %d parts, more than the %d a bundle may hold", path, len(zr.File), MaxParts)
	}
	b := &opened{path: path, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		if _, dup := b.files[f.Name]; dup {
			return nil, fmt.Errorf("%s: part %s is in the archive twice: the bundle was changed after export", path, f.Name)
		}
		b.files[f.Name] = f
	}
	mf, ok := b.files[manifestPart]
	if !ok {
		return nil, fmt.Errorf("%s: a zip archive without %s: not a fairbench bundle", path, manifestPart)
	}
	mb, err := readPart(mf, maxManifest)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", path, manifestPart, err)
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil || m.Format != Format {
		return nil, fmt.Errorf("%s: %s is not a fairbench bundle's manifest", path, manifestPart)
	}
	if m.Version > Version {
		return nil, fmt.Errorf("%s: bundle format version %d (written by fairbench %s); this fairbench reads up to version %d: use a fairbench that reads version %d",
			path, m.Version, m.Fairbench, Version, m.Version)
	}
	if m.Version < 1 {
		return nil, fmt.Errorf("%s: bundle format version %d is not one fairbench wrote", path, m.Version)
	}
	if len(m.Parts) > MaxParts {
		return nil, fmt.Errorf("%s: the manifest lists %d parts, more than the %d a bundle may hold", path, len(m.Parts), MaxParts)
	}
	b.manifest = &m
	if err := b.checkParts(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *opened) checkParts() error {
	listed := map[string]bool{manifestPart: true}
	var total int64
	for _, p := range b.manifest.Parts {
		if listed[p.Name] {
			return fmt.Errorf("%s: part %s is listed twice in the manifest", b.path, p.Name)
		}
		listed[p.Name] = true
		if p.Size < 0 || p.Size > MaxPart {
			return fmt.Errorf("%s: part %s: %d bytes, more than the %d MiB a part may be", b.path, p.Name, p.Size, MaxPart>>20)
		}
		if total += p.Size; total > MaxTotal {
			return fmt.Errorf("%s: its parts decompress to more than the %d GiB a bundle may hold", b.path, MaxTotal>>30)
		}
		if _, err := b.part(p.Name); err != nil {
			return err
		}
	}
	runParts := 0
	for name := range listed {
		if strings.HasPrefix(name, "runs/") {
			runParts++
		}
	}
	if runParts != b.manifest.Runs {
		return fmt.Errorf("%s: the manifest counts %d runs but lists %d run parts: the bundle was changed after export", b.path, b.manifest.Runs, runParts)
	}
	for name := range b.files {
		if !listed[name] {
			return fmt.Errorf("%s: part %s is not in the manifest: the bundle was changed after export", b.path, name)
		}
	}
	return nil
}

// part returns a listed part's content, checked against the manifest.
func (b *opened) part(name string) ([]byte, error) {
	var want *Part
	for i := range b.manifest.Parts {
		if b.manifest.Parts[i].Name == name {
			want = &b.manifest.Parts[i]
			break
		}
	}
	f := b.files[name]
	if want == nil || f == nil {
		return nil, fmt.Errorf("%s: part %s is missing: the bundle was changed after export", b.path, name)
	}
	changed := func(what string) error {
		return fmt.Errorf("%s: part %s: %s does not match the manifest: the bundle was changed after export", b.path, name, what)
	}
	data, err := readPart(f, want.Size)
	var tooLong *tooLongError
	switch {
	case errors.As(err, &tooLong):
		return nil, changed("size")
	case err != nil:
		return nil, fmt.Errorf("%s: part %s does not decompress (%v): the bundle was changed after export or is damaged", b.path, name, err)
	case int64(len(data)) != want.Size:
		return nil, changed("size")
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != want.SHA256 {
		return nil, changed("checksum")
	}
	return data, nil
}

type tooLongError struct{ limit int64 }

func (e *tooLongError) Error() string { return fmt.Sprintf("more than %d bytes", e.limit) }

// readPart decompresses a zip file through a limit of limit bytes, whatever
// its header claims: a zip bomb stops at the limit.
func readPart(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &tooLongError{limit}
	}
	return data, nil
}

// load writes the bundle's study files, runs and imported-file records into s.
func (b *opened) load(s *store.Store) error {
	var records []studyRecord
	if err := b.decode(studiesPart, &records); err != nil {
		return err
	}
	for _, rec := range records {
		content, err := b.part(rec.Part)
		if err != nil {
			return err
		}
		if _, err := s.AddStudyFile(store.StudyFile{Hash: rec.Hash, Name: rec.Name, File: rec.File, Content: content, SavedAt: rec.SavedAt}); err != nil {
			return err
		}
	}
	var batch []*result.Run
	flush := func() error {
		err := s.RestoreRuns(batch)
		batch = batch[:0]
		return err
	}
	for i := range b.manifest.Runs {
		name := runPartName(i, b.manifest.Runs)
		data, err := b.part(name)
		if err != nil {
			return err
		}
		r, err := decodeRun(data)
		if err != nil {
			return fmt.Errorf("%s: part %s: not a run (%v)", b.path, name, err)
		}
		if batch = append(batch, r); len(batch) == runBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	var files []store.ImportedFile
	if err := b.decode(importedPart, &files); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := s.AddImportedFile(f); err != nil {
			return err
		}
	}
	return nil
}

func (b *opened) decode(name string, v any) error {
	data, err := b.part(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: part %s does not decode: %v", b.path, name, err)
	}
	return nil
}
