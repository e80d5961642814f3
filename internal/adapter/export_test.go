package adapter

import "testing"

// KeepTools makes the registered tools what they are now again when t ends,
// for a test that registers a tool of its own.
func KeepTools(t testing.TB) {
	saved := tools
	t.Cleanup(func() { tools = saved })
}
