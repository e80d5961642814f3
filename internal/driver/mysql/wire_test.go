package mysql

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// A payload of 16 MiB - 1 bytes or more travels in several frames, the last
// shorter than 16 MiB - 1 (possibly empty); both directions reassemble it.
func TestWireFramesLongPackets(t *testing.T) {
	for _, size := range []int{maxFrame - 1, maxFrame, maxFrame + 10, 2 * maxFrame} {
		client, server := net.Pipe()
		w := &wire{nc: client, rbuf: make([]byte, 64)}
		payload := bytes.Repeat([]byte{'x'}, size)
		payload[0], payload[size-1] = 'a', 'z'
		go func() {
			w.startPacket(payload[0])
			w.wbuf = append(w.wbuf, payload[1:]...)
			if err := w.send(); err != nil {
				t.Error(err)
			}
		}()
		// What send wrote, read back frame by frame.
		var got []byte
		frames := 0
		for {
			var h [4]byte
			if _, err := io.ReadFull(server, h[:]); err != nil {
				t.Fatal(err)
			}
			n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
			if int(h[3]) != frames {
				t.Fatalf("size %d: frame %d has sequence number %d", size, frames, h[3])
			}
			frames++
			buf := make([]byte, n)
			if _, err := io.ReadFull(server, buf); err != nil {
				t.Fatal(err)
			}
			got = append(got, buf...)
			if n < maxFrame {
				break
			}
		}
		if !bytes.Equal(got, payload) || frames != size/maxFrame+1 {
			t.Fatalf("size %d: sent %d bytes in %d frames", size, len(got), frames)
		}
		// And readPacket puts the frames together again.
		go func() {
			rest := payload
			for seq := 0; ; seq++ {
				m := min(len(rest), maxFrame)
				server.Write(append([]byte{byte(m), byte(m >> 8), byte(m >> 16), byte(seq)}, rest[:m]...))
				rest = rest[m:]
				if m < maxFrame {
					break
				}
			}
			server.Write([]byte{1, 0, 0, 0, 0xfe}) // the next packet
		}()
		p, err := w.readPacket()
		if err != nil || !bytes.Equal(p, payload) {
			t.Fatalf("size %d: read %d bytes, %v", size, len(p), err)
		}
		if p, err = w.readPacket(); err != nil || !bytes.Equal(p, []byte{0xfe}) {
			t.Fatalf("size %d: next packet % x, %v", size, p, err)
		}
		client.Close()
		server.Close()
	}
}

func TestLenencRoundTrip(t *testing.T) {
	for _, n := range []uint64{0, 250, 251, 0xffff, 0x10000, 0xffffff, 0x1000000, 1 << 62} {
		b := appendLenenc(nil, n)
		got, size, ok := lenenc(b)
		if !ok || got != n || size != len(b) {
			t.Fatalf("%d: encoded % x, decoded %d (%d bytes, %v)", n, b, got, size, ok)
		}
	}
	if _, _, ok := lenenc([]byte{0xfb}); ok {
		t.Fatal("0xfb (NULL) decoded as a length")
	}
}
