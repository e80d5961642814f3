package driver_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

func TestAssign(t *testing.T) {
	var (
		i  int64
		n  int
		f  float64
		s  string
		b  []byte
		ok bool
		tm time.Time
		av any
	)
	for _, tc := range []struct {
		dest, v any
		check   func() bool
	}{
		{&f, "123456.78", func() bool { return f == 123456.78 }},   // a decimal's exact text into *float64
		{&s, "123456.78", func() bool { return s == "123456.78" }}, // and into *string, unchanged
		{&i, "-42", func() bool { return i == -42 }},
		{&n, int64(7), func() bool { return n == 7 }},
		{&i, uint64(9), func() bool { return i == 9 }},
		{&b, "ab", func() bool { return string(b) == "ab" }},
		{&ok, "t", func() bool { return ok }},
		{&ok, int64(0), func() bool { return !ok }},
		{&tm, "2024-02-03 04:05:06.5+01", func() bool { return tm.Equal(time.Date(2024, 2, 3, 3, 5, 6, 5e8, time.UTC)) }},
		{&tm, "2024-02-03", func() bool { return tm.Equal(time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC)) }},
		{&av, nil, func() bool { return av == nil }},
		{&av, []byte("x"), func() bool { return string(av.([]byte)) == "x" }},
	} {
		if err := driver.Assign(tc.dest, tc.v, "c"); err != nil || !tc.check() {
			t.Errorf("Assign(%T, %#v): %v", tc.dest, tc.v, err)
		}
	}
	for _, tc := range []struct{ dest, v any }{
		{&i, nil}, {&s, nil}, {&tm, nil}, // NULL into a typed destination
		{&i, "1.5"}, {&i, 1.5}, {&i, uint64(1 << 63)}, {&f, "x"}, {&ok, "maybe"}, {&tm, "soon"}, {&b, int64(1)},
	} {
		err := driver.Assign(tc.dest, tc.v, "amount")
		if err == nil || !strings.Contains(err.Error(), `"amount"`) {
			t.Errorf("Assign(%T, %#v) = %v; want an error naming the column", tc.dest, tc.v, err)
		}
	}
}

// Package driver knows nothing of the fast path (internal/fastpath).
func TestDriverDoesNotImportTheFastPath(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "/internal/fastpath") || strings.HasSuffix(p, "/driver/sockets") {
			t.Errorf("package driver depends on %s", p)
		}
	}
}
