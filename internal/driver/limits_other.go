//go:build !unix

package driver

func openFileLimit() (uint64, bool) { return 0, false }
