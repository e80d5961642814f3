package envinfo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// The OS tuning that changes what a host measures is read from the kernel's
// files: the governor, the transparent huge pages mode in force (the
// bracketed word), swappiness and the NUMA nodes; what a kernel does not
// show is left out, not guessed.
func TestOSTuningReadsTheKernelsFiles(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got result.Host
	if readOSTuning(&got, root); !reflect.DeepEqual(got, result.Host{}) {
		t.Fatalf("nothing to read gave %+v", got)
	}
	write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n")
	write("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
	write("proc/sys/vm/swappiness", "60\n")
	for _, n := range []string{"node0", "node1"} {
		if err := os.MkdirAll(filepath.Join(root, "sys/devices/system/node", n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "sys/devices/system/node/power"), 0o755); err != nil {
		t.Fatal(err)
	}
	swappiness := 60
	want := result.Host{CPUGovernor: "performance", TransparentHugepages: "madvise", Swappiness: &swappiness, NUMANodes: 2}
	if readOSTuning(&got, root); !reflect.DeepEqual(got, want) {
		t.Errorf("readOSTuning = %+v, want %+v", got, want)
	}
}
