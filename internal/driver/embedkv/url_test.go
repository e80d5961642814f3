package embedkv

import (
	"maps"
	"strings"
	"testing"
)

type toyConfig struct {
	Sync  bool
	Cache int64
	Mode  string
}

var toy = URL[toyConfig]{
	Scheme:  "toy",
	Path:    "database file",
	Example: "bench.toy",
	Options: []Option[toyConfig]{
		{Name: "cache_size", Wants: SizeWords, Set: func(c *toyConfig, v string) bool {
			n, ok := ParseSize(v)
			c.Cache = n
			return ok
		}},
		{Name: "mode", Wants: "fast or slow", Set: func(c *toyConfig, v string) bool {
			c.Mode = v
			return v == "fast" || v == "slow"
		}},
		{Name: "sync", Wants: BoolWords, Set: func(c *toyConfig, v string) bool { return ParseBool(v, &c.Sync) }},
	},
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		raw, path string
		want      toyConfig
		given     map[string]string
	}{
		{"toy:f", "f", toyConfig{Mode: "default"}, map[string]string{}},
		{"TOY:f", "f", toyConfig{Mode: "default"}, map[string]string{}},
		{"toy://rel/f", "rel/f", toyConfig{Mode: "default"}, map[string]string{}},
		{"toy:///abs/f", "/abs/f", toyConfig{Mode: "default"}, map[string]string{}},
		{"toy:f?Cache-Size=2MiB&SYNC=on&mode=fast", "f", toyConfig{Sync: true, Cache: 2 << 20, Mode: "fast"},
			map[string]string{"cache_size": "Cache-Size", "sync": "SYNC", "mode": "mode"}},
		{"toy:f?cachesize=10", "f", toyConfig{Cache: 10, Mode: "default"}, map[string]string{"cache_size": "cachesize"}},
	} {
		cfg := toyConfig{Mode: "default"}
		path, given, err := toy.Parse(tc.raw, &cfg)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.raw, err)
			continue
		}
		if path != tc.path || cfg != tc.want || !maps.Equal(given, tc.given) {
			t.Errorf("Parse(%q) = %q, %+v, %v; want %q, %+v, %v", tc.raw, path, cfg, given, tc.path, tc.want, tc.given)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"toy:f?nope=1", `toy URL parameter "nope" is not an option (valid: cache_size, mode, sync)`},
		{"toy:f?sync=maybe", `toy URL parameter sync="maybe" is not a valid value: use true or false`},
		{"toy:f?Mode=medium", `toy URL parameter Mode="medium" is not a valid value: use fast or slow`},
		{"toy:f?cache_size=1PiB", `toy URL parameter cache_size="1PiB" is not a valid value: use ` + SizeWords},
		{"toy:f?sync=true&sync=true", "toy URL parameter sync is given more than once (as sync and sync): give it once"},
		// Keys are taken in sorted order: Sync before sync.
		{"toy:f?sync=true&Sync=false", "toy URL parameter sync is given more than once (as Sync and sync): give it once"},
		{"toy:f?cache-size=1&cache_size=2", "toy URL parameter cache_size is given more than once (as cache-size and cache_size): give it once"},
		{"toy:", `"toy:" names no database file: use e.g. toy:bench.toy`},
		{"toy://?sync=true", `"toy://?sync=true" names no database file: use e.g. toy:bench.toy`},
		{"toy:f?%zz", `"toy:f?%zz": bad query string: invalid URL escape "%zz"`},
		{"to", `"to" is not a toy: URL`},
		{"other:f", `"other:f" is not a toy: URL`},
		{"toy:f\x00x", `toy URL "toy:f" has a NUL byte after it (offset 5): a file name cannot hold one`},
	} {
		cfg := toyConfig{}
		_, _, err := toy.Parse(tc.raw, &cfg)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) error\n  %v\nwant\n  %s", tc.raw, err, tc.want)
		}
	}
	// A password in a URL the scheme does not match is not repeated.
	_, _, err := toy.Parse("redis://:s3cretpassword@host", &toyConfig{})
	if err == nil || strings.Contains(err.Error(), "s3cretpassword") {
		t.Errorf("Parse of another scheme's URL = %v, want an error without its password", err)
	}
}

func TestParseSize(t *testing.T) {
	for v, want := range map[string]int64{
		"0": 0, "1": 1, "1048576": 1 << 20, "64KiB": 64 << 10, "64kib": 64 << 10, "2MiB": 2 << 20, "3GIB": 3 << 30,
		"0KiB": 0, "1099511627776": 1 << 40, "1048576MiB": 1 << 40, "1024GiB": 1 << 40,
	} {
		if n, ok := ParseSize(v); !ok || n != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", v, n, ok, want)
		}
	}
	for _, v := range []string{
		"", "-1", "+", "KiB", "1.5MiB", "1 MiB", "1MB", "1M", "1KB", "1TiB", "1PiB", "1kibkib",
		"1099511627777", "1048577MiB", "1025GiB", "9223372036854775808", "0x10",
	} {
		if n, ok := ParseSize(v); ok {
			t.Errorf("ParseSize(%q) = %d, want refused", v, n)
		}
	}
}

func TestParseBool(t *testing.T) {
	for _, v := range []string{"true", "TRUE", "1", "yes", "On"} {
		b := false
		if !ParseBool(v, &b) || !b {
			t.Errorf("ParseBool(%q) = %v, want true", v, b)
		}
	}
	for _, v := range []string{"false", "False", "0", "no", "OFF"} {
		b := true
		if !ParseBool(v, &b) || b {
			t.Errorf("ParseBool(%q) = %v, want false", v, b)
		}
	}
	for _, v := range []string{"", "maybe", "t", "2", " true"} {
		b := true
		if ParseBool(v, &b) || !b {
			t.Errorf("ParseBool(%q) accepted, or changed the value", v)
		}
	}
}
