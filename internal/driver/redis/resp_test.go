package redis

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

func TestAppendCommandIsRESPArrayOfBulkStrings(t *testing.T) {
	b, n := appendCommand(nil, &driver.KVCommand{Name: "SET", Key: []byte("k1"), Value: []byte("hello"), Args: [][]byte{[]byte("EX"), []byte("10")}})
	want := "*5\r\n$3\r\nSET\r\n$2\r\nk1\r\n$5\r\nhello\r\n$2\r\nEX\r\n$2\r\n10\r\n"
	if string(b) != want || n != len(want) {
		t.Fatalf("got %q (%d), want %q (%d)", b, n, want, len(want))
	}
	b, _ = appendCommand(nil, &driver.KVCommand{Name: "PING"})
	if string(b) != "*1\r\n$4\r\nPING\r\n" {
		t.Fatalf("PING: %q", b)
	}
}

// oneByte hands the reader one byte per Read, so that every reply crosses
// buffer refills.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

func TestReaderDecodesEveryReplyTypeAcrossReads(t *testing.T) {
	big := strings.Repeat("v", 40<<10) // larger than the initial buffer
	stream := "+OK\r\n-OOM command not allowed when used memory > 'maxmemory'.\r\n:42\r\n$-1\r\n$5\r\nhello\r\n" +
		"*2\r\n$1\r\na\r\n*1\r\n:1\r\n*-1\r\n$" + itoa(len(big)) + "\r\n" + big + "\r\n-MOVED 3999 127.0.0.1:7002\r\n"
	for _, src := range []io.Reader{strings.NewReader(stream), oneByte{strings.NewReader(stream)}} {
		r := newReader(src)
		var got []driver.KVReply
		total := 0
		for range 9 {
			var rep driver.KVReply
			n, err := r.reply(&rep)
			if err != nil {
				t.Fatalf("reply %d: %v", len(got), err)
			}
			total += n
			got = append(got, rep)
		}
		if total != len(stream) {
			t.Errorf("sizes add up to %d, the stream has %d bytes", total, len(stream))
		}
		if string(got[0].Value) != "OK" || got[0].Err != nil {
			t.Errorf("+OK: %+v", got[0])
		}
		if got[1].Err == nil || got[1].Class != result.ErrThrottled {
			t.Errorf("OOM must be an error reply classed throttled: %+v", got[1])
		}
		if string(got[2].Value) != "42" {
			t.Errorf(":42: %+v", got[2])
		}
		if !got[3].Miss || !got[6].Miss {
			t.Errorf("nil bulk and nil array must be misses: %+v %+v", got[3], got[6])
		}
		if string(got[4].Value) != "hello" || got[4].Miss {
			t.Errorf("bulk: %+v", got[4])
		}
		if got[5].Err != nil || got[5].Miss {
			t.Errorf("nested array: %+v", got[5])
		}
		if string(got[7].Value) != big {
			t.Errorf("big bulk: %d bytes, want %d", len(got[7].Value), len(big))
		}
		var se *serverError
		if !errors.As(got[8].Err, &se) || se.prefix() != "MOVED" {
			t.Errorf("MOVED: %+v", got[8])
		}
		// Values stay valid until the next pipeline, whatever later reads did.
		if string(got[4].Value) != "hello" {
			t.Errorf("an earlier value was overwritten: %q", got[4].Value)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestReaderRefusesWhatIsNotRESP(t *testing.T) {
	// What a PostgreSQL server answers to bytes it cannot read.
	for _, s := range []string{"E\x00\x00\x00\x50SFATAL\x00\r\n", "HTTP/1.1 400 Bad Request\r\n"} {
		var rep driver.KVReply
		_, err := newReader(strings.NewReader(s)).reply(&rep)
		if !errors.Is(err, errProtocol) {
			t.Errorf("%q: %v, want a protocol error", s, err)
		}
	}
	var rep driver.KVReply
	if _, err := newReader(strings.NewReader("+OK")).reply(&rep); !errors.Is(err, io.EOF) {
		t.Errorf("a reply cut short: %v, want EOF", err)
	}
}

func TestKeySlotMatchesTheClusterSpec(t *testing.T) {
	// CRC16/XMODEM("123456789") = 0x31C3, the check value the cluster
	// specification gives; hash tags put related keys in one slot.
	for key, want := range map[string]int{"123456789": 0x31C3, "foo": 12182, "{user1000}.following": keySlot([]byte("user1000")), "a{}b": keySlot([]byte("a{}b"))} {
		if got := keySlot([]byte(key)); got != want {
			t.Errorf("keySlot(%q) = %d, want %d", key, got, want)
		}
	}
	if keySlot([]byte("{user1000}.following")) != keySlot([]byte("{user1000}.followers")) {
		t.Error("keys with the same hash tag must share a slot")
	}
}

func TestParseURL(t *testing.T) {
	cfg, err := parseURL("rediss://bench:s3cret@cache.example:6380/2?skip_verify=true&timeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "cache.example:6380" || cfg.User != "bench" || cfg.Password != "s3cret" || cfg.DB != 2 || !cfg.TLS || !cfg.SkipVerify || cfg.Timeout.Seconds() != 2 {
		t.Fatalf("%+v", cfg)
	}
	cfg, err = parseURL("redis://:only-pass@127.0.0.1")
	if err != nil || cfg.User != "" || cfg.Password != "only-pass" || cfg.Addr != "127.0.0.1:6379" {
		t.Fatalf("%+v %v", cfg, err)
	}
	for raw, want := range map[string]string{
		"redis://h/x":                    "names the database by number",
		"redis://h?clustre=true":         `unsupported parameter "clustre"`,
		"redis://h?ca=/etc/hosts":        "need TLS",
		"redis://h/3?cluster=true":       "only database 0",
		"redis://h:99999":                "not a port number",
		"redis://u:pw@h?client=jedis":    "use wire or go-redis",
		"redis://u:SECRETPW@h?timeout=x": "timeout=x",
	} {
		_, err := parseURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "SECRETPW") {
			t.Errorf("%s: the error shows the password: %v", raw, err)
		}
	}
}

// Lengths written and read by the short paths (below 100) and by strconv
// agree with strconv's text at every width.
func TestLengthsRoundTripAtEveryWidth(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 42, 99, 100, 999, 12345, maxBulk} {
		want := "$" + strconv.Itoa(n) + "\r\n"
		if got := string(appendLen(nil, '$', n)); got != want {
			t.Errorf("appendLen(%d) = %q, want %q", n, got, want)
		}
		if got, err := parseLen([]byte(strconv.Itoa(n))); err != nil || got != n {
			t.Errorf("parseLen(%d) = %d, %v", n, got, err)
		}
	}
	for _, bad := range []string{"", "-2", "0x1", "1a", "a", " 5", "05x"} {
		if _, err := parseLen([]byte(bad)); err == nil {
			t.Errorf("parseLen(%q) accepted", bad)
		}
	}
	if n, err := parseLen([]byte("-1")); err != nil || n != -1 {
		t.Errorf("parseLen(-1) = %d, %v", n, err)
	}
}
