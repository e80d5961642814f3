package ycsb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/workload"
)

// rewritePeerLine reads YCSB's -P workloads/workload[a-f] when there is no
// such file (a line copied from YCSB's own directory) as the preset of that
// core workload, whose properties fairbench has value for value (presets).
// A file that exists is read as it is.
func rewritePeerLine(args []string) (workload.PeerRewrite, error) {
	var r workload.PeerRewrite
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			r.Args = append(r.Args, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		if (name != "-P" && name != "--property-file") || (!hasValue && i+1 >= len(args)) {
			r.Args = append(r.Args, a)
			continue
		}
		if !hasValue {
			i++
			value = args[i]
		}
		preset := presetOfPath(value)
		if _, err := os.Stat(value); preset == "" || !errors.Is(err, fs.ErrNotExist) {
			r.Args = append(r.Args, name+"="+value)
			continue
		}
		r.Args = append(r.Args, "--preset="+preset)
		r.Notes = append(r.Notes, fmt.Sprintf("%s %s: no such file here; read as YCSB's core workload %s (--preset %s), the same properties", name, value, preset, preset))
	}
	return r, nil
}

// presetOfPath is the preset a path in YCSB's layout names
// (workloads/workloada is a), "" for another path.
func presetOfPath(path string) string {
	dir, base := filepath.Split(filepath.ToSlash(path))
	p, ok := strings.CutPrefix(base, "workload")
	if !ok || !slices.Contains(presetNames, p) {
		return ""
	}
	if dir = strings.TrimSuffix(dir, "/"); dir != "" && filepath.Base(dir) != "workloads" {
		return ""
	}
	return p
}
