package embedkv

import (
	"errors"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

func TestRedisIntegers(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63, "42": 42, "10": 10, "-10": -10} {
		if n, ok := parseInt([]byte(s)); !ok || n != want {
			t.Errorf("parseInt(%q) = %d, %v; want %d", s, n, ok, want)
		}
	}
	for _, s := range []string{
		"", "-", "+1", "01", "-0", "00", "-01", " 1", "1 ", "1.0", "1e3", "--1", "1-",
		"9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999",
		"000000000000000000001", // 21 bytes
		"0x10", "１", "\x001",
	} {
		if n, ok := parseInt([]byte(s)); ok {
			t.Errorf("parseInt(%q) = %d: Redis refuses it", s, n)
		}
	}
}

func TestIncr(t *testing.T) {
	for _, tc := range []struct {
		old     string
		present bool
		want    int64
		err     error
	}{
		{"", false, 1, nil}, // absent counts as 0
		{"41", true, 42, nil},
		{"-1", true, 0, nil},
		{"9223372036854775806", true, 1<<63 - 1, nil},
		{"9223372036854775807", true, 0, errOverflow},
		{"", true, 0, errNotInteger}, // an empty value is present, and no integer
		{"abc", true, 0, errNotInteger},
		{"+5", true, 0, errNotInteger},
	} {
		n, err := Incr([]byte(tc.old), tc.present)
		if n != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("Incr(%q, %v) = %d, %v; want %d, %v", tc.old, tc.present, n, err, tc.want, tc.err)
		}
	}
}

func kv(name, key string, value []byte, args ...string) *driver.KVCommand {
	c := &driver.KVCommand{Name: name, Key: []byte(key), Value: value}
	for _, a := range args {
		c.Args = append(c.Args, []byte(a))
	}
	return c
}

func TestDecode(t *testing.T) {
	long := strings.Repeat("X", 200)
	for _, tc := range []struct {
		c       *driver.KVCommand
		want    Op
		errText string
	}{
		{kv("GET", "k", nil), opGet, ""},
		{kv("get", "k", nil), opGet, ""},
		{kv("GET", "k", []byte("v")), opBad, "ERR wrong number of arguments for 'get' command"},
		{kv("GeT", "k", nil, "x"), opBad, "ERR wrong number of arguments for 'get' command"},
		{kv("SET", "k", []byte("v")), OpSet, ""},
		{kv("SET", "k", []byte{}), OpSet, ""}, // an empty value is a value
		{kv("SET", "k", nil), opBad, "ERR wrong number of arguments for 'set' command"},
		{kv("SET", "k", nil, "v"), OpSet, ""}, // the value as an argument
		{kv("SET", "k", []byte("v"), "EX", "10"), opBad, string(errSetOptions)},
		{kv("INCR", "k", nil), OpIncr, ""},
		{kv("INCR", "k", []byte("1")), opBad, "ERR wrong number of arguments for 'incr' command"},
		{kv("DEL", "k", nil), OpDel, ""},
		{kv("del", "k", []byte("k2"), "k3"), OpDel, ""},
		{kv("FLUSHALL", "k", nil), opBad, "ERR unknown command 'FLUSHALL': this embedded engine answers GET, SET, INCR and DEL"},
		{kv(long, "k", nil), opBad, "ERR unknown command '" + long[:128] + "': "},
	} {
		o, err := decode(tc.c)
		if o != tc.want {
			t.Errorf("decode(%s %q %q %q) = %d, want %d", tc.c.Name, tc.c.Key, tc.c.Value, tc.c.Args, o, tc.want)
		}
		if tc.errText == "" {
			if err != nil {
				t.Errorf("decode(%s %q): %v", tc.c.Name, tc.c.Key, err)
			}
			continue
		}
		var re replyError
		if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), tc.errText) {
			t.Errorf("decode(%s %q) error %v, want a reply error starting %q", tc.c.Name[:min(len(tc.c.Name), 20)], tc.c.Key, err, tc.errText)
		}
	}
	if opGet.writes() || opBad.writes() || !OpSet.writes() || !OpIncr.writes() || !OpDel.writes() {
		t.Error("Writes: GET and bad commands read, SET, INCR and DEL write")
	}
}

// A Redis client sends DEL's keys as the key, then the value when there is
// one, then the arguments.
func TestArgs(t *testing.T) {
	for _, c := range []*driver.KVCommand{
		kv("DEL", "a", []byte("b"), "c"),
		kv("DEL", "a", nil, "b", "c"),
	} {
		var got []string
		for i := range NArgs(c) {
			got = append(got, string(Arg(c, i)))
		}
		if strings.Join(got, " ") != "a b c" {
			t.Errorf("arguments of %q %q %q = %q, want a b c", c.Key, c.Value, c.Args, got)
		}
		if n := bytesIn(c); n != 3 {
			t.Errorf("bytesIn = %d, want 3", n)
		}
	}
}

func TestEngineError(t *testing.T) {
	if err := engineError("bbolt", errNotInteger); err != errNotInteger {
		t.Errorf("EngineError of a reply error = %v, want it unchanged", err)
	}
	base := errors.New("key required")
	err := engineError("bbolt", base)
	if err.Error() != "ERR bbolt: key required" || !errors.Is(err, base) {
		t.Errorf("EngineError = %q, want ERR bbolt: key required, wrapping the engine's error", err)
	}
}
