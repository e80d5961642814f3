package embedkv

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// fakeClient is an engine's client around the shared one, as bbolt's and
// pebble's are.
type fakeClient struct {
	Client[fakeConfig, *fakeDB]
}

func (c *fakeClient) Session(context.Context) (driver.Conn, error) { return nil, nil }

// Registry.Open hands a URL that does not parse back with the parser's own
// error, and wraps the shared handle of a path in the engine's client.
func TestRegistryOpen(t *testing.T) {
	r := newRegistry()
	bad := errors.New("fake URL fake:x has no path")
	parse := func(url string) (fakeConfig, error) {
		if url == "fake:x" {
			return fakeConfig{}, bad
		}
		return fakeConfig{Path: url[len("fake:"):]}, nil
	}
	wrap := func(h *Handle[fakeConfig, *fakeDB]) driver.Client {
		return &fakeClient{Client[fakeConfig, *fakeDB]{H: h}}
	}
	if _, err := r.Open("fake:x", parse, openFake, wrap); !errors.Is(err, bad) {
		t.Errorf("Open of a URL that does not parse = %v, want the parser's error", err)
	}
	url := "fake:" + filepath.Join(t.TempDir(), "db")
	c1, err := r.Open(url, parse, openFake, wrap)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := r.Open(url, parse, openFake, wrap)
	if err != nil {
		t.Fatal(err)
	}
	if c1.(*fakeClient).H != c2.(*fakeClient).H {
		t.Error("two clients of one path have two handles, want one shared")
	}
	for _, c := range []driver.Client{c1, c2} {
		if err := c.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}
	if _, err := r.Open("fake:"+filepath.Join(t.TempDir(), "refused"), parse, openFake, wrap); err == nil {
		t.Error("Open of a database open refuses succeeded")
	}
	var d InProcessDriver
	if !d.InProcess() || d.FilesPerClient() != 0 {
		t.Errorf("InProcessDriver: InProcess %v, FilesPerClient %d; want true, 0", d.InProcess(), d.FilesPerClient())
	}
}
