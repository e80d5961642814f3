// Package bundle is a published study as one file a reader can re-run and
// check: a zip archive (a .fbz file, or carried base64 inside the HTML
// report, html.go) of the study files as they were run, every run complete
// (summary, operations with their histograms, the per-second series with
// the interval histograms, environment, deviations) and the imported-file
// records of its studies: what store.Copy copies, for the runs selected.
//
// manifest.json names every other part with its size and SHA-256. Reading
// verifies each part against it before anything is used, and bounds the
// file, every part (decompressed through a limit, whatever its zip header
// claims) and the number of parts, so that a changed, truncated or hostile
// file is refused in one line naming what is wrong.
package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"time"

	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/version"
)

// Format marks a manifest as a fairbench bundle's.
const Format = "fairbench-bundle"

// Version is the bundle format this fairbench writes and the newest it
// reads. Raise it when a part changes meaning; readers refuse a newer one.
const Version = 1

// Parts of a bundle besides the study files and runs.
const (
	manifestPart = "manifest.json"
	studiesPart  = "studies.json" // the study files' records; their content is in studies/
	importedPart = "imported.json"
)

// Manifest is manifest.json: what the bundle is and every other part in it.
type Manifest struct {
	Format    string     `json:"format"`
	Version   int        `json:"version"`
	Fairbench string     `json:"fairbench_version"` // the fairbench that exported it
	Created   time.Time  `json:"created"`
	Studies   []StudyRef `json:"studies"` // the studies of its runs (name, study file hash), in run order
	Runs      int        `json:"runs"`
	Parts     []Part     `json:"parts"`
}

// StudyRef names a study file in the bundle.
type StudyRef struct {
	Name string `json:"name"`
	Hash string `json:"hash"` // hex SHA-256 of the file as it was run
}

// Part is one file of the bundle with the size and SHA-256 of its content.
type Part struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// studyRecord is one entry of studies.json.
type studyRecord struct {
	Hash    string    `json:"hash"`
	Name    string    `json:"name"`
	File    string    `json:"file"`
	SavedAt time.Time `json:"saved_at"`
	Part    string    `json:"part"` // the part holding its content
}

// Write writes the bundle of the runs f selects in s, with the study files
// they were made from and their studies' imported-file records, and returns
// its manifest. Every part passes through redact (scrubStrings): the store
// keeps no secret, and a bundle is published, so what a store written by an
// older fairbench might still hold is replaced once more.
func Write(w io.Writer, s *store.Store, f store.Filter) (*Manifest, error) {
	runs, err := s.Runs(f)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs in %s match: nothing to export", s.Path())
	}
	var hashes []string
	names := map[string]bool{}
	m := &Manifest{Format: Format, Version: Version, Fairbench: version.String(), Created: time.Now().UTC(), Runs: len(runs)}
	for _, r := range runs {
		ref := StudyRef{Name: r.StudyName, Hash: r.StudyHash}
		if !slices.Contains(m.Studies, ref) {
			m.Studies = append(m.Studies, ref)
		}
		if r.StudyHash != "" && !slices.Contains(hashes, r.StudyHash) {
			hashes = append(hashes, r.StudyHash)
		}
		names[r.StudyName] = true
	}
	var studies []store.StudyFile
	if len(hashes) > 0 {
		if studies, err = s.StudyFiles(hashes...); err != nil {
			return nil, err
		}
	}
	imported, err := s.ImportedFiles()
	if err != nil {
		return nil, err
	}
	zw := zip.NewWriter(w)
	// The best compression costs little next to reading the runs, and a
	// bundle is written once and published.
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	add := func(name string, data []byte) error {
		sum := sha256.Sum256(data)
		m.Parts = append(m.Parts, Part{Name: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
		pw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: m.Created})
		if err != nil {
			return err
		}
		_, err = pw.Write(data)
		return err
	}
	var records []studyRecord
	for i, st := range studies {
		rec := studyRecord{Hash: st.Hash, Name: st.Name, File: redact.Scrub(st.File), SavedAt: st.SavedAt, Part: studyPartName(i, st)}
		if err := add(rec.Part, []byte(redact.Scrub(string(st.Content)))); err != nil {
			return nil, err
		}
		records = append(records, rec)
	}
	var files []store.ImportedFile
	for _, im := range imported {
		if names[im.StudyName] {
			files = append(files, im)
		}
	}
	for _, p := range []struct {
		name string
		v    any
	}{{studiesPart, records}, {importedPart, files}} {
		b, err := scrubbedJSON(p.v)
		if err != nil {
			return nil, fmt.Errorf("bundle part %s: %w", p.name, err)
		}
		if err := add(p.name, b); err != nil {
			return nil, err
		}
	}
	for i, r := range runs {
		b, err := scrubbedJSON(r)
		if err != nil {
			return nil, fmt.Errorf("bundle part %s: %w", runPartName(i, len(runs)), err)
		}
		if err := add(runPartName(i, len(runs)), b); err != nil {
			return nil, err
		}
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	pw, err := zw.CreateHeader(&zip.FileHeader{Name: manifestPart, Method: zip.Deflate, Modified: m.Created})
	if err != nil {
		return nil, err
	}
	if _, err := pw.Write(mb); err != nil {
		return nil, err
	}
	return m, zw.Close()
}

// Bytes is Write into memory, for a bundle carried in a report.
func Bytes(s *store.Store, f store.Filter) ([]byte, *Manifest, error) {
	var b bytes.Buffer
	m, err := Write(&b, s, f)
	if err != nil {
		return nil, nil, err
	}
	return b.Bytes(), m, nil
}

// runPartName numbers the runs from 1 in their store's id order, with as
// many digits as the count needs (at least 4), so that the parts sort.
func runPartName(i, n int) string {
	width := max(4, len(fmt.Sprint(n)))
	return fmt.Sprintf("runs/%0*d.json", width, i+1)
}

var studyExt = regexp.MustCompile(`^\.[A-Za-z0-9]{1,8}$`)

// studyPartName is studies/N with the study file's own extension (.toml),
// for a reader who unzips the bundle.
func studyPartName(i int, st store.StudyFile) string {
	ext := path.Ext(st.File)
	if !studyExt.MatchString(ext) {
		ext = ""
	}
	return fmt.Sprintf("studies/%d%s", i+1, ext)
}

// binaryFields hold encoded histograms (base64 of HdrHistogram), not text:
// scrubbing them could only corrupt a histogram whose base64 happened to
// read like "…/token=x".
var binaryFields = map[string]bool{"Histogram": true, "ServiceHistogram": true, "h": true}

// scrubbedJSON encodes v with every text in it passed through redact.Scrub
// (URL passwords and password= pairs by their place, the process's known
// secrets by value), keys and values alike, histograms excepted.
func scrubbedJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers are written back exactly as they were
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	return json.Marshal(scrubStrings(tree, ""))
}

func scrubStrings(v any, key string) any {
	switch x := v.(type) {
	case string:
		if binaryFields[key] {
			return x
		}
		return redact.Scrub(x)
	case []any:
		for i := range x {
			x[i] = scrubStrings(x[i], key)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out[redact.Scrub(k)] = scrubStrings(x[k], k)
		}
		return out
	}
	return v
}

// decodeRun reads a run part back.
func decodeRun(data []byte) (*result.Run, error) {
	var r result.Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
