package redis

import (
	"bytes"
	"errors"
	"io"
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
