package postgres

import (
	"bytes"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// The hand-written decoders read whatever a server (or anything posing as
// one) sends without panicking or allocating for lengths that never arrive:
// the message splitter, a statement's reply, a result's rows and values.
func FuzzWireDecode(f *testing.F) {
	var seed []byte
	for _, m := range []pgproto3.BackendMessage{
		&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: "on"},
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("n"), DataTypeOID: oidInt8}, {Name: []byte("s"), DataTypeOID: 25}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("-42"), []byte("x")}},
		&pgproto3.DataRow{Values: [][]byte{nil, nil}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")},
		&pgproto3.ErrorResponse{Severity: "ERROR", Code: "40001", Message: "could not serialize access"},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	} {
		var err error
		if seed, err = m.Encode(seed); err != nil {
			f.Fatal(err)
		}
	}
	f.Add(seed)
	f.Add([]byte{'D', 0x7f, 0xff, 0xff, 0xff, 0, 1})
	f.Add([]byte{'D', 0, 0, 0, 10, 0, 1, 0xff, 0xff, 0xff, 0xff, 'Z', 0, 0, 0, 5, 'I'})
	f.Fuzz(func(t *testing.T, data []byte) {
		newWire := func() *wire {
			r := bytes.NewReader(data)
			return &wire{fe: pgproto3.NewFrontend(r, io.Discard), in: replies{r: r, buf: make([]byte, 64)}}
		}
		_, _ = newWire().finish(true)
		rows := &wireRows{w: newWire()}
		for i := 0; i < 1000 && rows.Next(); i++ {
			dest := make([]any, len(rows.vals))
			for j := range dest {
				dest[j] = new(any)
			}
			_ = rows.Scan(dest...)
		}
		rs := replies{r: bytes.NewReader(data), buf: make([]byte, 64)}
		for range 1000 {
			_, body, err := rs.next()
			if err != nil {
				break
			}
			_, _ = firstInt(body)
		}
		for _, oid := range []uint32{oidInt2, oidInt4, oidInt8, oidOID, oidFloat4, oidFloat8, oidBool, oidDate, oidTimestamp, oidTimestamptz, oidBytea, 25} {
			_, _ = textValue(data, oid)
		}
	})
}

// A length that lies (1 GB announced, 10 bytes sent) costs memory for what
// arrived, not for what was announced; one beyond PostgreSQL's limit is refused.
func TestRepliesDoNotTrustALength(t *testing.T) {
	msg := append([]byte{'D', 0x40, 0, 0, 0}, make([]byte, 10)...)
	rs := replies{r: bytes.NewReader(msg), buf: make([]byte, 64)}
	if _, _, err := rs.next(); err != io.EOF {
		t.Fatalf("got %v, want EOF", err)
	}
	if len(rs.buf) > 1<<10 {
		t.Fatalf("buffer grew to %d bytes for 15 received", len(rs.buf))
	}
	rs = replies{r: bytes.NewReader([]byte{'D', 0x7f, 0xff, 0xff, 0xff, 0}), buf: make([]byte, 64)}
	if _, _, err := rs.next(); err == nil || err == io.EOF {
		t.Fatalf("a 2 GB message: %v, want it refused", err)
	}
}
