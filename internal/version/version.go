// Package version names the fairbench build that produced a result.
package version

import "runtime/debug"

// Version is set at build time with -ldflags "-X .../version.Version=v1.2.3".
var Version = "0.1.0-dev"

// String returns the version with the VCS revision when the binary carries one.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Version
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return Version + "+" + rev
}
