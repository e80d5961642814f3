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
	if d["mount"] == "" || d["filesystem"] == "" {
		t.Errorf("disk facts lack mount or filesystem: %v", d)
	}
}

func TestHostHasTopologyAndDisk(t *testing.T) {
	h := Host()
	if _, ok := h["threads"]; !ok {
		t.Fatal("no threads")
	}
	if c, ok := h["cores"].(int); ok && (c < 1 || c > h["threads"].(int)) {
		t.Errorf("cores %d outside 1..threads %v", c, h["threads"])
	}
}
