package postgres

import "testing"

// The password of the URL, even one letter long, is kept out of a message
// where it stands, and the rest of the message is left readable.
func TestScrubShortPassword(t *testing.T) {
	got := scrub("failed to connect to `user=bench database=x`: unexpected EOF (postgres://bench:p@127.0.0.1:1/x)", "postgres://bench:p@127.0.0.1:1/x")
	want := "failed to connect to `user=bench database=x`: unexpected EOF (postgres://bench:xxxxx@127.0.0.1:1/x)"
	if got != want {
		t.Errorf("scrub = %q, want %q", got, want)
	}
}
