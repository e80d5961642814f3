package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

func histogram(t *testing.T, n int) []byte {
	t.Helper()
	h := hist.New()
	for i := 1; i <= n; i++ {
		h.RecordValue(int64(100 + i*7))
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sample is a results file holding one study file and two runs, one
// carrying a URL password in its error text (a store written before the
// runner redacted errors).
func sample(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.SaveStudy("abc123", "bundled", "s.toml", []byte("[study]\nname = \"bundled\"\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for i, errText := range []string{"", "dial postgres://u:Unit-pw-5d1c@db/x: refused"} {
		r := &result.Run{Source: "fairbench", StudyName: "bundled", StudyHash: "abc123", CellKey: "one/tpcb/c=1/r=" + string(rune('1'+i)),
			Target: "one", TargetURL: "sqlite:one.db", Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"scale": int64(1), "ratio": 0.5},
			Clients: 1, Repetition: i + 1, Status: result.StatusOK, Error: errText, StartedAt: start, EndedAt: start.Add(time.Second),
			Duration: time.Second, ToolVersion: "test", Deviations: []string{"none"},
			Summary: result.Summary{Transactions: 100, Throughput: 100, P50: 120, P99: 400},
			Ops:     []result.Op{{Name: "tpcb", Count: 100, Histogram: histogram(t, 100)}},
			Series: []result.SeriesPoint{{Second: 1, Ops: 100, Rate: 100, P50: 120,
				Hists: []result.IntervalOp{{Name: "tpcb", Count: 100, Histogram: string(histogram(t, 100))}}}},
		}
		if _, err := s.AppendRun(r); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// exported writes the sample's bundle to a file and returns its path.
func exported(t *testing.T, s *store.Store) (string, []byte) {
	t.Helper()
	data, _, err := Bytes(s, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "s.fbz")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// Every run comes back as the store holds it, under its id, with its
// histograms; the study file too; the secret does not.
func TestBundleRoundTrip(t *testing.T) {
	s := sample(t)
	path, data := exported(t, s)
	tmp := t.TempDir() // where the bundle's store goes, to see it removed
	t.Setenv("TMPDIR", tmp)
	if bytes.Contains(data, []byte("Unit-pw-5d1c")) {
		t.Error("the raw bundle holds the password")
	}
	b, m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Runs != 2 || len(m.Studies) != 1 || m.Studies[0].Hash != "abc123" || m.Version != Version {
		t.Errorf("manifest: %+v", m)
	}
	want, _ := s.Runs(store.Filter{})
	got, err := b.Runs(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want[1].Error = strings.ReplaceAll(want[1].Error, "Unit-pw-5d1c", "xxxxx")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runs from the bundle differ:\n%+v\nwant\n%+v", got, want)
	}
	src, ok, err := b.StudySource("abc123")
	if err != nil || !ok || !strings.Contains(string(src), `name = "bundled"`) {
		t.Errorf("study source: %q %v %v", src, ok, err)
	}
	if b.Path() != path {
		t.Errorf("the store is shown as %q, want the bundle's path", b.Path())
	}
	b.Close()
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("closing the store left %q", left)
	}
}

// rewrite rebuilds a bundle's archive with change applied to each part's
// content (manifest included), recompressed: what someone editing a
// bundle by hand produces.
func rewrite(t *testing.T, data []byte, change func(name string, b []byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if b = change(f.Name, b); b == nil {
			continue
		}
		w, _ := zw.Create(f.Name)
		w.Write(b)
	}
	zw.Close()
	return out.Bytes()
}

func refused(t *testing.T, data []byte, want ...string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "demo.fbz")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := Open(p)
	if err == nil {
		s.Close()
		t.Fatalf("a changed bundle was read; want an error with %q", want)
	}
	for _, w := range append(want, p) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func manifestEdit(t *testing.T, edit func(m *Manifest)) func(string, []byte) []byte {
	return func(name string, b []byte) []byte {
		if name != manifestPart {
			return b
		}
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		out, _ := json.Marshal(m)
		return out
	}
}

func TestChangedBundlesAreRefusedNamingWhatChanged(t *testing.T) {
	_, data := exported(t, sample(t))
	oneByte := rewrite(t, data, func(name string, b []byte) []byte {
		if name == "runs/0002.json" {
			i := bytes.Index(b, []byte(`"Clients":1`))
			b[i+len(`"Clients":`)] = '2'
		}
		return b
	})
	refused(t, oneByte, "part runs/0002.json: checksum does not match the manifest: the bundle was changed after export")
	longer := rewrite(t, data, func(name string, b []byte) []byte {
		if name == "runs/0001.json" {
			return append(b, ' ')
		}
		return b
	})
	refused(t, longer, "part runs/0001.json: size does not match the manifest")
	// A flipped byte in the compressed stream itself.
	raw := append([]byte(nil), data...)
	i := bytes.Index(raw, []byte("runs/0001.json")) + len("runs/0001.json") + 30
	raw[i] ^= 0xff
	refused(t, raw, "part runs/0001.json")
	refused(t, rewrite(t, data, func(name string, b []byte) []byte {
		if name == "runs/0002.json" {
			return nil
		}
		return b
	}), "part runs/0002.json is missing")
}

func TestUnchangedRewriteStillReads(t *testing.T) {
	_, data := exported(t, sample(t))
	p := filepath.Join(t.TempDir(), "same.fbz")
	os.WriteFile(p, rewrite(t, data, func(_ string, b []byte) []byte { return b }), 0o644)
	s, _, err := Open(p)
	if err != nil {
		t.Fatalf("a bundle recompressed with the same content is refused: %v", err)
	}
	s.Close()
}

func TestNewerFormatAndBoundsAreRefused(t *testing.T) {
	_, data := exported(t, sample(t))
	refused(t, rewrite(t, data, manifestEdit(t, func(m *Manifest) { m.Version = Version + 1 })),
		"bundle format version 2", "use a fairbench that reads version 2")
	refused(t, rewrite(t, data, manifestEdit(t, func(m *Manifest) { m.Runs = 1 })),
		"the manifest counts 1 runs but lists 2 run parts")
	refused(t, rewrite(t, data, manifestEdit(t, func(m *Manifest) { m.Parts[0].Size = MaxPart + 1 })),
		"more than the 256 MiB a part may be")
	refused(t, rewrite(t, data, manifestEdit(t, func(m *Manifest) {
		for i := 0; i <= MaxParts; i++ {
			m.Parts = append(m.Parts, Part{Name: "x"})
		}
	})), "more than the 100000 a bundle may hold")
	// A zip bomb: a part whose content is far longer than the manifest says
	// stops at the manifest's size.
	bomb := rewrite(t, data, func(name string, b []byte) []byte {
		if name == "runs/0001.json" {
			return append(b, bytes.Repeat([]byte{' '}, 1<<20)...)
		}
		return b
	})
	refused(t, bomb, "part runs/0001.json: size does not match the manifest")
	// A file over the bound is refused unread (a sparse file: no disk used).
	p := filepath.Join(t.TempDir(), "huge.fbz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(zipMagic)
	f.Truncate(MaxFile + 1)
	f.Close()
	if _, _, err := Open(p); err == nil || !strings.Contains(err.Error(), "larger than 1024 MiB") {
		t.Errorf("a file over the bound: %v", err)
	}
	refused(t, rewrite(t, data, func(name string, b []byte) []byte {
		if name == manifestPart {
			return nil
		}
		return b
	}), "without manifest.json")
}

// The page's element round-trips, and a page without one says how to make it.
func TestHTMLCarriesTheBundle(t *testing.T) {
	_, data := exported(t, sample(t))
	page := "<!-- generated by fairbench -->\n<html><body><p>report</p>" + string(Element(data)) + "</body></html>"
	got, err := Extract("r.html", []byte(page))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("extract: %v (%d bytes, want %d)", err, len(got), len(data))
	}
	_, err = Extract("r.html", []byte("<html><body>no data</body></html>"))
	if err == nil || !strings.Contains(err.Error(), "--embed-data") {
		t.Errorf("a page without data: %v", err)
	}
	p := filepath.Join(t.TempDir(), "r.html")
	os.WriteFile(p, []byte(page), 0o644)
	s, _, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, _ := s.Runs(store.Filter{}); len(runs) != 2 {
		t.Errorf("%d runs from the page, want 2", len(runs))
	}
}
