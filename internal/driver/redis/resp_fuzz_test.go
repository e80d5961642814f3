package redis

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// The RESP reader decodes whatever a server (or a port that is no server)
// sends: it must never panic, never claim more bytes than it was given, and
// end every stream with a reply, a protocol error or the end of input.
func FuzzRESPReply(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "-ERR wrong\r\n", ":42\r\n", "$-1\r\n", "$5\r\nhello\r\n", "*2\r\n$1\r\na\r\n:1\r\n",
		"*-1\r\n", "*1\r\n*1\r\n*1\r\n:7\r\n", "$99999999999\r\n", "*3\r\n", "HTTP/1.1 400\r\n",
		"-MOVED 3999 127.0.0.1:7002\r\n", "$3\r\nabc", "\r\n", "+\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newReader(bytes.NewReader(data))
		total := 0
		for i := 0; i < 64; i++ {
			var rep driver.KVReply
			n, err := r.reply(&rep)
			total += n
			if total > len(data) {
				t.Fatalf("decoded %d bytes of %d", total, len(data))
			}
			if err != nil {
				if !errors.Is(err, errProtocol) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
		}
	})
}

// parseURL takes any target a user may write without panicking, and its
// errors never show the URL's password.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://127.0.0.1:6379/0", "rediss://u:s3cret-password@h:6380/2?skip_verify=true",
		"valkey://:pw-0123456789@h?cluster=true", "redis://h/x", "redis://u:pw-0123456789@h:99999",
		"redis://h?timeout=-1s", "redis://h?client=jedis&client=wire",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_, err := parseURL(raw)
		if err == nil {
			return
		}
		if u, perr := url.Parse(raw); perr == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok && len(pw) >= 10 && !strings.Contains(strings.Replace(raw, pw, "", 1), pw) &&
				strings.Contains(err.Error(), pw) {
				t.Fatalf("parseURL(%q): the error shows the password: %v", raw, err)
			}
		}
	})
}
