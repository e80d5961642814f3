package mysql

import (
	"bytes"
	"net"
	"testing"
)

// byteConn is a connection whose server side is a fixed byte stream.
type byteConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *byteConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *byteConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *byteConn) Close() error                { return nil }

// frame wraps payloads into MySQL packets.
func frame(payloads ...[]byte) []byte {
	var b []byte
	for i, p := range payloads {
		b = append(b, byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), byte(i))
		b = append(b, p...)
	}
	return b
}

// The hand-written decoders read whatever a server (or anything posing as
// one) sends without panicking: packets, result sets, column definitions,
// binary rows, errors.
func FuzzWireDecode(f *testing.F) {
	def := []byte("\x03def\x00\x00\x00\x01n\x00\x0c\x3f\x00\x0b\x00\x00\x00\x08\x00\x00\x00\x00\x00")
	f.Add(frame([]byte{0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00}))                                        // OK
	f.Add(frame([]byte("\xff\x26\x04#42000You have an error")))                                           // ERR
	f.Add(frame([]byte{0x01}, def, []byte{0xfe, 0, 0, 2, 0}, []byte{0x00, 0x00, 42, 0, 0, 0, 0, 0, 0, 0}, // one BIGINT row
		[]byte{0xfe, 0, 0, 2, 0}))
	f.Add(frame([]byte{0x01}, def, []byte{0x00, 0x04, 7}, []byte{0xfe, 0, 0, 0x0a, 0})) // NULL row, more results
	f.Add(frame([]byte{0xfc, 0xff}, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, eof := range []bool{false, true} {
			w := &wire{nc: &byteConn{r: bytes.NewReader(data)}, rbuf: make([]byte, 64), deprecateEOF: !eof}
			_, _ = w.results(&wireStmt{}, true)
			w = &wire{nc: &byteConn{r: bytes.NewReader(data)}, rbuf: make([]byte, 64), deprecateEOF: !eof}
			rs := &wireRows{w: w, s: &wireStmt{cols: []column{{typ: typeLongLong}, {typ: typeVarString}}}}
			for i := 0; i < 100 && rs.Next(); i++ {
				var a, b any
				_ = rs.Scan(&a, &b)
			}
		}
		// Each decoder on the raw bytes.
		_, _, _ = lenenc(data)
		_, _, _ = parseColumn(data)
		_ = moreResults(append([]byte{0}, data...), false)
		_ = moreResults(data, true)
		for _, typ := range []byte{typeDecimal, typeTiny, typeShort, typeLong, typeFloat, typeDouble, typeNull,
			typeLongLong, typeInt24, typeYear, typeVarchar, typeNewDecimal, typeVarString, typeString} {
			c := column{typ: typ}
			_, _ = firstColumn(data, []column{c})
			_, _, _ = binaryValue(data, c)
			c.unsigned = true
			_, _ = firstColumn(data, []column{c})
			_, _, _ = binaryValue(data, c)
		}
		w := &wire{nc: &byteConn{r: bytes.NewReader(nil)}}
		if len(data) > 0 {
			_ = w.serverError(data)
		}
	})
}

// A frame header announcing 16 MB followed by 10 bytes costs memory for what
// arrived, not for what was announced.
func TestReadPacketDoesNotTrustALength(t *testing.T) {
	data := append([]byte{0xfe, 0xff, 0xff, 0}, make([]byte, 10)...)
	w := &wire{nc: &byteConn{r: bytes.NewReader(data)}, rbuf: make([]byte, 64)}
	if _, err := w.readPacket(); err == nil {
		t.Fatal("a packet cut short was read")
	}
	if len(w.rbuf) > 1<<13 {
		t.Fatalf("read buffer grew to %d bytes for 14 received", len(w.rbuf))
	}
}
