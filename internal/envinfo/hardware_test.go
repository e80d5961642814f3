package envinfo

import "testing"

func TestMountHelpers(t *testing.T) {
	if got := unescapeMount(`/mnt/my\040disk`); got != "/mnt/my disk" {
		t.Errorf("unescapeMount = %q", got)
	}
	for _, c := range []struct {
		path, dir string
		want      bool
	}{{"/data/x", "/data", true}, {"/database", "/data", false}, {"/x", "/", true}, {"/data", "/data", true}} {
		if got := within(c.path, c.dir); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.path, c.dir, got)
		}
	}
}

func TestDiskOfWorkingDirectory(t *testing.T) {
	d := Disk(t.TempDir())
	if d == nil {
		t.Skip("no /proc/self/mountinfo on this system")
	}
	if d.Mount == "" || d.Filesystem == "" || d.Path == "" || d.Source == "" {
		t.Errorf("disk facts lack mount, filesystem, path or source: %+v", d)
	}
}

func TestHostHasTopologyAndDisk(t *testing.T) {
	h := Host()
	if h.Threads < 1 {
		t.Fatal("no threads")
	}
	if c := h.Cores; c != 0 && (c < 1 || c > h.Threads) {
		t.Errorf("cores %d outside 1..threads %d", c, h.Threads)
	}
	if (h.Cores > 0) != (h.Sockets > 0) {
		t.Errorf("cores %d, sockets %d: want both counted or neither", h.Cores, h.Sockets)
	}
}
