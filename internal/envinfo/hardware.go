package envinfo

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// topology counts sockets and physical cores from sysfs, which describes ARM
// and x86 alike (/proc/cpuinfo has no "physical id" on ARM).
func topology() (sockets, cores int) {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology")
	pkgs := map[string]bool{}
	phys := map[string]bool{}
	for _, d := range dirs {
		pkg := readTrim(filepath.Join(d, "physical_package_id"))
		core := readTrim(filepath.Join(d, "core_id"))
		if pkg == "" || core == "" {
			continue
		}
		pkgs[pkg] = true
		phys[pkg+"/"+core] = true
	}
	return len(pkgs), len(phys)
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// maxMHz is the CPU's highest frequency as the kernel's cpufreq reports it.
func maxMHz() float64 {
	khz, err := strconv.ParseFloat(readTrim("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"), 64)
	if err != nil {
		return 0
	}
	return khz / 1000
}

// Disk describes the file system and block device under dir: where a local
// target (SQLite) keeps its data, and where results are written.
func Disk(dir string) *result.Disk {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	mnt, fstype, source := mountOf(abs)
	if mnt == "" {
		return nil
	}
	d := &result.Disk{Path: abs, Mount: mnt, Filesystem: fstype, Source: source}
	if !strings.HasPrefix(source, "/dev/") {
		return d // overlay, tmpfs, a network file system: no block device to describe
	}
	name := filepath.Base(source)
	if real, err := filepath.EvalSymlinks(source); err == nil {
		name = filepath.Base(real)
	}
	dev := filepath.Join("/sys/class/block", name)
	if _, err := os.Stat(filepath.Join(dev, "partition")); err == nil {
		// A partition's sysfs directory sits inside its disk's.
		if real, err := filepath.EvalSymlinks(dev); err == nil {
			name = filepath.Base(filepath.Dir(real))
		}
	}
	d.Device = name
	if rot := readTrim(filepath.Join("/sys/block", name, "queue/rotational")); rot != "" {
		rotational := rot == "1"
		d.Rotational = &rotational
	}
	d.Model = readTrim(filepath.Join("/sys/block", name, "device/model"))
	d.Scheduler = readTrim(filepath.Join("/sys/block", name, "queue/scheduler"))
	return d
}

// mountOf finds the mount holding path in /proc/self/mountinfo: the longest
// mount point that is a prefix of it.
func mountOf(path string) (mount, fstype, source string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, rest := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(rest) < 2 {
			continue
		}
		mp := unescapeMount(fields[4])
		if !within(path, mp) || len(mp) < len(mount) {
			continue
		}
		mount, fstype, source = mp, rest[0], rest[1]
	}
	return mount, fstype, source
}

func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
