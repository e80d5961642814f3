package postgres

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// trickle hands out at most n bytes per Read, as a socket may.
type trickle struct {
	r io.Reader
	n int
}

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.n)]) }

// A reply stream encoded by pgproto3's backend side, read back message by
// message in chunks of every size from 1 byte up, with a row far bigger than
// the buffer: each message comes out whole, in order, with its exact body.
func TestRepliesSplitTheStreamIntoMessages(t *testing.T) {
	big := []byte(strings.Repeat("x", 50000))
	msgs := []pgproto3.BackendMessage{
		&pgproto3.BindComplete{},
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("abalance"), DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("-42"), big}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: "on"},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	}
	var (
		stream []byte
		starts []int
	)
	for _, m := range msgs {
		starts = append(starts, len(stream))
		var err error
		if stream, err = m.Encode(stream); err != nil {
			t.Fatal(err)
		}
	}
	starts = append(starts, len(stream))
	types := make([]byte, len(msgs))
	bodies := make([][]byte, len(msgs))
	for i := range msgs {
		types[i], bodies[i] = stream[starts[i]], stream[starts[i]+5:starts[i+1]]
	}
	for _, chunk := range []int{1, 2, 3, 5, 7, 4096, 1 << 20} {
		rs := replies{r: &trickle{bytes.NewReader(stream), chunk}, buf: make([]byte, 64)}
		for i := range msgs {
			typ, body, err := rs.next()
			if err != nil {
				t.Fatalf("chunks of %d: message %d: %v", chunk, i, err)
			}
			if typ != types[i] || !bytes.Equal(body, bodies[i]) {
				t.Fatalf("chunks of %d: message %d is %q with %d bytes, want %q with %d", chunk, i, typ, len(body), types[i], len(bodies[i]))
			}
			if typ == 'D' {
				if v, err := firstInt(body); v != -42 || err != nil {
					t.Fatalf("chunks of %d: first column %d, %v; want -42", chunk, v, err)
				}
			}
		}
		if _, _, err := rs.next(); err != io.EOF {
			t.Fatalf("chunks of %d: after the last message: %v, want EOF", chunk, err)
		}
	}
}

func TestRepliesRejectAnInvalidLength(t *testing.T) {
	rs := replies{r: bytes.NewReader([]byte{'D', 0, 0, 0, 3, 0}), buf: make([]byte, 64)}
	if _, _, err := rs.next(); err == nil || !strings.Contains(err.Error(), "length 3") {
		t.Fatalf("got %v, want an invalid-length error", err)
	}
}

func TestFirstInt(t *testing.T) {
	row := func(values ...[]byte) []byte {
		b, err := (&pgproto3.DataRow{Values: values}).Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b[5:]
	}
	for _, c := range []struct {
		name string
		body []byte
		want int64
		err  string
	}{
		{"an integer", row([]byte("123"), []byte("z")), 123, ""},
		{"the minimum", row([]byte("-9223372036854775808")), -9223372036854775808, ""},
		{"NULL", row(nil), 0, ""},
		{"no columns", row(), 0, "no columns"},
		{"not an integer", row([]byte("1.5")), 0, "1.5"},
		{"truncated", row([]byte("123"))[:7], 0, "longer than its message"},
		{"cut before the length", row([]byte("123"))[:4], 0, "too short"},
	} {
		got, err := firstInt(c.body)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: got %d, %v; want %d, error containing %q", c.name, got, err, c.want, c.err)
		}
	}
}
