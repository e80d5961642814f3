// Package examples ships the example study files inside the binary, so that
// `fairbench demo` works from nothing but the executable.
package examples

import "embed"

// Files holds every example study.
//
//go:embed *.toml
var Files embed.FS
