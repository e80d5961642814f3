package mysql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"

	gomysql "github.com/go-sql-driver/mysql"
)

// wire runs server-side prepared statements on the connection's socket
// itself: COM_STMT_PREPARE, COM_STMT_EXECUTE and COM_STMT_CLOSE, written and
// read here, while go-sql-driver keeps everything else (handshake,
// authentication, TLS, the text protocol, the environment queries). Between two
// commands the MySQL protocol holds no state on the client but the statement
// ids, so the two can share the connection.
//
// Why not go-sql-driver through database/sql for these too: a point select
// costs the client about 2 µs of user time there (database/sql's pool, locks
// and argument conversion, go-sql-driver's packet handling and allocations),
// and on a machine the client shares with the server that time is the
// server's. The path here sends what libmariadb sends for sysbench (the
// parameter types only when they change) and allocates nothing per statement
// (the "MySQL statements on the wire" section of bench/README.md at 13fc635).
//
// Only a plaintext connection can use it: under TLS the bytes go through
// go-sql-driver's tls.Conn, which it does not share.
type wire struct {
	nc net.Conn
	// deprecateEOF: go-sql-driver negotiated CLIENT_DEPRECATE_EOF, so no EOF
	// packet follows column definitions and a result set ends with an OK
	// packet (learned at start, see newWire).
	deprecateEOF bool
	rbuf         []byte // read buffer: rbuf[rpos:rend] is unread
	rpos, rend   int
	pkt          []byte // a packet split over several frames, reassembled
	wbuf         []byte
	// broken is the I/O or protocol error after which the connection's state
	// is unknown; every later call fails with it.
	broken error
}

// MySQL protocol constants (https://dev.mysql.com/doc/dev/mysql-server/latest/).
const (
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19

	pktOK  = 0x00
	pktEOF = 0xfe
	pktERR = 0xff

	maxFrame = 0xffffff // a payload this long continues in the next frame

	statusMoreResults = 0x0008 // SERVER_MORE_RESULTS_EXISTS

	typeDecimal    = 0x00
	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeDouble     = 0x05
	typeNull       = 0x06
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeYear       = 0x0d
	typeVarchar    = 0x0f
	typeNewDecimal = 0xf6
	typeVarString  = 0xfd
	typeString     = 0xfe

	flagUnsigned = 0x20 // column definition flag
)

// column is what decoding a binary row's value needs.
type column struct {
	typ      byte
	unsigned bool
	binary   bool   // the binary character set: a string column holds bytes
	name     string // kept from one definition to the next while it is the same
}

// wireStmt is a statement prepared on the wire.
type wireStmt struct {
	id      uint32
	nparams int
	cols    []column // from the prepare, or the latest metadata sent
	// sentTypes are the parameter types the server last received; an execute
	// sends them again only when they change, as libmariadb does.
	sentTypes []byte
}

// newWire takes the statements of a connection go-sql-driver has opened and
// left idle. It learns whether EOF packets were deprecated from the reply to
// preparing "SELECT ?": after the parameter's definition comes either an EOF
// packet or, deprecated, the column's definition.
func newWire(nc net.Conn) (*wire, error) {
	w := &wire{nc: nc, rbuf: make([]byte, 16<<10), wbuf: make([]byte, 0, 1<<10)}
	id, ncols, nparams, err := w.sendPrepare("SELECT ?")
	if err != nil {
		return nil, err
	}
	if ncols != 1 || nparams != 1 {
		return nil, w.fail(fmt.Errorf("preparing SELECT ? gave %d columns and %d parameters", ncols, nparams))
	}
	if _, err := w.readPacket(); err != nil { // the parameter
		return nil, err
	}
	p, err := w.readPacket()
	if err != nil {
		return nil, err
	}
	w.deprecateEOF = p[0] != pktEOF
	if !w.deprecateEOF {
		if _, err := w.readPacket(); err != nil { // the column
			return nil, err
		}
	}
	if err := w.skipEOF(); err != nil {
		return nil, err
	}
	if err := w.close(id); err != nil {
		return nil, err
	}
	return w, nil
}

// fail marks the connection broken and closes its socket, so that nothing
// (go-sql-driver included) reads the rest of a reply as the next one.
func (w *wire) fail(err error) error {
	if w.broken == nil {
		w.broken = err
		w.nc.Close()
	}
	return err
}

// serverError turns an ERR packet into the error go-sql-driver would return,
// so that classifying errors does not depend on the path.
func (w *wire) serverError(p []byte) error {
	if len(p) < 3 {
		return w.fail(errors.New("malformed error packet"))
	}
	e := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:])}
	msg := p[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

// fill reads more of the socket into the buffer, keeping rbuf[rpos:rend].
func (w *wire) fill(need int) error {
	if w.rpos > 0 {
		w.rend = copy(w.rbuf, w.rbuf[w.rpos:w.rend])
		w.rpos = 0
	}
	for w.rend < need {
		// Grow only as the bytes arrive (doubling, up to need): a frame
		// header announcing 16 MB costs what was actually received.
		if w.rend == len(w.rbuf) {
			nb := make([]byte, min(need, max(2*len(w.rbuf), 4096)))
			copy(nb, w.rbuf[:w.rend])
			w.rbuf = nb
		}
		n, err := w.nc.Read(w.rbuf[w.rend:])
		w.rend += n
		if err != nil && w.rend < need {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return w.fail(err)
		}
	}
	return nil
}

// readPacket returns the next packet's payload, valid until the next read.
func (w *wire) readPacket() ([]byte, error) {
	if w.broken != nil {
		return nil, w.broken
	}
	w.pkt = w.pkt[:0]
	for {
		if w.rend-w.rpos < 4 {
			if err := w.fill(4); err != nil {
				return nil, err
			}
		}
		h := w.rbuf[w.rpos:]
		n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
		if w.rend-w.rpos < 4+n {
			if err := w.fill(4 + n); err != nil {
				return nil, err
			}
		}
		p := w.rbuf[w.rpos+4 : w.rpos+4+n]
		w.rpos += 4 + n
		if n < maxFrame && len(w.pkt) == 0 {
			if n == 0 {
				return nil, w.fail(errors.New("empty packet"))
			}
			return p, nil
		}
		w.pkt = append(w.pkt, p...)
		if n < maxFrame {
			return w.pkt, nil
		}
	}
}

// startPacket begins a command in wbuf (room for the frame header first).
func (w *wire) startPacket(cmd byte) {
	w.wbuf = append(w.wbuf[:0], 0, 0, 0, 0, cmd)
}

// send frames wbuf's payload, splitting it as the protocol requires, and writes it.
func (w *wire) send() error {
	if w.broken != nil {
		return w.broken
	}
	out := w.wbuf
	if n := len(out) - 4; n < maxFrame {
		out[0], out[1], out[2], out[3] = byte(n), byte(n>>8), byte(n>>16), 0
	} else {
		payload := out[4:]
		framed := make([]byte, 0, len(payload)+4*(len(payload)/maxFrame+1))
		for seq := 0; ; seq++ {
			m := min(len(payload), maxFrame)
			framed = append(framed, byte(m), byte(m>>8), byte(m>>16), byte(seq))
			framed = append(framed, payload[:m]...)
			payload = payload[m:]
			if m < maxFrame {
				break
			}
		}
		out = framed
	}
	if _, err := w.nc.Write(out); err != nil {
		return w.fail(err)
	}
	return nil
}

func (w *wire) writeCommand(cmd byte, arg string) error {
	w.startPacket(cmd)
	w.wbuf = append(w.wbuf, arg...)
	return w.send()
}

// skipEOF reads the EOF packet that ends column or parameter definitions when
// EOF packets are not deprecated.
func (w *wire) skipEOF() error {
	if w.deprecateEOF {
		return nil
	}
	p, err := w.readPacket()
	if err == nil && p[0] != pktEOF {
		err = w.fail(fmt.Errorf("expected an EOF packet, got % x", p[:min(len(p), 16)]))
	}
	return err
}

// sendPrepare sends COM_STMT_PREPARE and reads the first packet of the reply:
// the statement's id and how many column and parameter definitions follow.
func (w *wire) sendPrepare(q string) (id uint32, ncols, nparams int, err error) {
	if err := w.writeCommand(comStmtPrepare, q); err != nil {
		return 0, 0, 0, err
	}
	p, err := w.readPacket()
	if err != nil {
		return 0, 0, 0, err
	}
	if p[0] == pktERR {
		return 0, 0, 0, w.serverError(p)
	}
	if p[0] != pktOK || len(p) < 12 {
		return 0, 0, 0, w.fail(fmt.Errorf("unexpected reply to a prepare: % x", p[:min(len(p), 16)]))
	}
	return binary.LittleEndian.Uint32(p[1:]), int(binary.LittleEndian.Uint16(p[5:])), int(binary.LittleEndian.Uint16(p[7:])), nil
}

// prepare prepares q on the server.
func (w *wire) prepare(q string) (*wireStmt, error) {
	id, ncols, nparams, err := w.sendPrepare(q)
	if err != nil {
		return nil, err
	}
	s := &wireStmt{id: id, nparams: nparams}
	for range s.nparams {
		if _, err := w.readPacket(); err != nil {
			return nil, err
		}
	}
	if s.nparams > 0 {
		if err := w.skipEOF(); err != nil {
			return nil, err
		}
	}
	if ncols > 0 {
		if s.cols, err = w.readColumns(ncols, s.cols, nil); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readColumns reads n column definitions (the first already read when first
// is not nil) and the EOF packet after them.
func (w *wire) readColumns(n int, cols []column, first []byte) ([]column, error) {
	cols = cols[:0]
	for i := range n {
		p := first
		if i > 0 || p == nil {
			var err error
			if p, err = w.readPacket(); err != nil {
				return nil, err
			}
		}
		c, name, err := parseColumn(p)
		if err != nil {
			return nil, w.fail(err)
		}
		if i < cap(cols) && cols[:i+1][i].name == string(name) {
			c.name = cols[:i+1][i].name // no allocation when MySQL resends the same definitions
		} else {
			c.name = string(name)
		}
		cols = append(cols, c)
	}
	return cols, w.skipEOF()
}

// parseColumn reads a column definition (Protocol::ColumnDefinition41): six
// length-encoded strings (the fifth is the column's name), then the
// fixed-length fields.
func parseColumn(p []byte) (column, []byte, error) {
	pos := 0
	var name []byte
	for i := range 6 {
		n, size, ok := lenenc(p[pos:])
		if !ok || n > uint64(len(p)) || pos+size+int(n) > len(p) {
			return column{}, nil, errors.New("malformed column definition")
		}
		if i == 4 {
			name = p[pos+size : pos+size+int(n)]
		}
		pos += size + int(n)
	}
	_, size, ok := lenenc(p[pos:]) // length of the fixed fields (0x0c)
	pos += size
	// charset (2), column length (4), type (1), flags (2)
	if !ok || pos+9 > len(p) {
		return column{}, nil, errors.New("malformed column definition")
	}
	flags := binary.LittleEndian.Uint16(p[pos+7:])
	charset := binary.LittleEndian.Uint16(p[pos:])
	return column{typ: p[pos+6], unsigned: flags&flagUnsigned != 0, binary: charset == 63}, name, nil
}

// lenenc decodes a length-encoded integer: value, bytes used, ok.
func lenenc(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	switch b[0] {
	case 0xfc:
		if len(b) < 3 {
			return 0, 0, false
		}
		return uint64(binary.LittleEndian.Uint16(b[1:])), 3, true
	case 0xfd:
		if len(b) < 4 {
			return 0, 0, false
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4, true
	case 0xfe:
		if len(b) < 9 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(b[1:]), 9, true
	case 0xfb, 0xff:
		return 0, 0, false
	}
	return uint64(b[0]), 1, true
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n <= 0xffff:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n <= 0xffffff:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// close deallocates a statement; the server does not reply.
func (w *wire) close(id uint32) error {
	w.startPacket(comStmtClose)
	w.wbuf = binary.LittleEndian.AppendUint32(w.wbuf, id)
	return w.send()
}

// errUnsupportedArg: a value the wire path does not encode (the caller runs
// the statement through go-sql-driver instead).
var errUnsupportedArg = errors.New("argument type not supported on the wire path")

// appendExecute writes COM_STMT_EXECUTE for s with args into wbuf.
func (w *wire) appendExecute(s *wireStmt, args []any) error {
	if len(args) != s.nparams {
		return fmt.Errorf("statement has %d parameters, got %d arguments", s.nparams, len(args))
	}
	w.startPacket(comStmtExecute)
	w.wbuf = binary.LittleEndian.AppendUint32(w.wbuf, s.id)
	w.wbuf = append(w.wbuf, 0, 1, 0, 0, 0) // no cursor, one iteration
	if s.nparams == 0 {
		return nil
	}
	nullAt := len(w.wbuf)
	for range (s.nparams + 7) / 8 {
		w.wbuf = append(w.wbuf, 0)
	}
	boundAt := len(w.wbuf)
	w.wbuf = append(w.wbuf, 1)
	typesAt := len(w.wbuf)
	for range s.nparams {
		w.wbuf = append(w.wbuf, 0, 0)
	}
	for i, a := range args {
		typ, unsigned := byte(typeLongLong), false
		switch v := a.(type) {
		case nil:
			typ = typeNull
			w.wbuf[nullAt+i/8] |= 1 << (i % 8)
		case int64:
			w.wbuf = binary.LittleEndian.AppendUint64(w.wbuf, uint64(v))
		case int:
			w.wbuf = binary.LittleEndian.AppendUint64(w.wbuf, uint64(v))
		case int32:
			w.wbuf = binary.LittleEndian.AppendUint64(w.wbuf, uint64(v))
		case uint64:
			unsigned = true
			w.wbuf = binary.LittleEndian.AppendUint64(w.wbuf, v)
		case float64:
			typ = typeDouble
			w.wbuf = binary.LittleEndian.AppendUint64(w.wbuf, math.Float64bits(v))
		case bool:
			typ = typeTiny
			b := byte(0)
			if v {
				b = 1
			}
			w.wbuf = append(w.wbuf, b)
		case string:
			typ = typeString
			w.wbuf = append(appendLenenc(w.wbuf, uint64(len(v))), v...)
		case []byte:
			typ = typeString
			w.wbuf = append(appendLenenc(w.wbuf, uint64(len(v))), v...)
		default:
			return errUnsupportedArg
		}
		flag := byte(0)
		if unsigned {
			flag = 0x80
		}
		w.wbuf[typesAt+2*i], w.wbuf[typesAt+2*i+1] = typ, flag
	}
	types := w.wbuf[typesAt : typesAt+2*s.nparams]
	if string(types) == string(s.sentTypes) {
		// The server keeps the types it was sent last: leave them out.
		w.wbuf[boundAt] = 0
		w.wbuf = append(w.wbuf[:typesAt], w.wbuf[typesAt+len(types):]...)
	} else {
		s.sentTypes = append(s.sentTypes[:0], types...)
	}
	return nil
}

// reply is what a statement's reply amounts to for the callers.
type reply struct {
	first  int64 // first column of the first row, as an integer (NULL → 0)
	hasRow bool
}

// execute runs s with args and reads the whole reply; with scan, the first
// column of the first row is decoded as an integer.
func (w *wire) execute(s *wireStmt, args []any, scan bool) (reply, error) {
	var r reply
	if w.broken != nil {
		return r, w.broken
	}
	if err := w.appendExecute(s, args); err != nil {
		return r, err
	}
	if err := w.send(); err != nil {
		return r, err
	}
	return w.results(s, scan)
}

// results reads a statement's reply from its first packet on: result sets,
// each up to its last row, until no more results follow.
func (w *wire) results(s *wireStmt, scan bool) (reply, error) {
	var r reply
	var scanErr error
	for {
		p, err := w.readPacket()
		if err != nil {
			return r, err
		}
		switch p[0] {
		case pktERR:
			return r, w.serverError(p)
		case pktOK:
			if !moreResults(p, false) {
				return r, scanErr
			}
			continue
		case 0xfb:
			return r, w.fail(errors.New("the server asked for a LOCAL INFILE, which fairbench does not send"))
		}
		ncols, _, ok := lenenc(p)
		if !ok || ncols == 0 {
			return r, w.fail(fmt.Errorf("malformed result set header % x", p[:min(len(p), 16)]))
		}
		// MariaDB leaves the column definitions out when it sent them before
		// (MARIADB_CLIENT_CACHE_METADATA); a definition starts with the
		// catalog "def", a row with 0x00, an EOF or OK packet with 0xfe.
		if p, err = w.readPacket(); err != nil {
			return r, err
		}
		if p[0] == 3 && len(p) > 4 && string(p[1:4]) == "def" {
			if s.cols, err = w.readColumns(int(ncols), s.cols, p); err != nil {
				return r, err
			}
			p, err = w.readPacket()
		} else if !w.deprecateEOF {
			if p[0] != pktEOF {
				return r, w.fail(fmt.Errorf("expected an EOF packet, got % x", p[:min(len(p), 16)]))
			}
			p, err = w.readPacket()
		}
		for ; err == nil; p, err = w.readPacket() {
			if p[0] == pktERR {
				return r, w.serverError(p)
			}
			if p[0] == pktEOF && len(p) < maxFrame {
				break
			}
			if scan && !r.hasRow && scanErr == nil {
				r.first, scanErr = firstColumn(p, s.cols)
				r.hasRow = scanErr == nil
			}
		}
		if err != nil {
			return r, err
		}
		if !moreResults(p, !w.deprecateEOF) {
			return r, scanErr
		}
	}
}

// moreResults reads SERVER_MORE_RESULTS_EXISTS from an OK or EOF packet.
func moreResults(p []byte, eof bool) bool {
	if eof {
		return len(p) >= 5 && binary.LittleEndian.Uint16(p[3:])&statusMoreResults != 0
	}
	_, n, ok1 := lenenc(p[1:])
	_, m, ok2 := lenenc(p[1+n:])
	at := 1 + n + m
	return ok1 && ok2 && len(p) >= at+2 && binary.LittleEndian.Uint16(p[at:])&statusMoreResults != 0
}

var errMalformedRow = errors.New("malformed row")

// firstColumn decodes a binary row's first value as an integer, converting as
// database/sql's Scan into an int64 would.
func firstColumn(p []byte, cols []column) (int64, error) {
	if len(cols) == 0 {
		return 0, errors.New("a row without column definitions")
	}
	nullBytes := (len(cols) + 7 + 2) / 8
	if len(p) < 1+nullBytes {
		return 0, errMalformedRow
	}
	if p[1]&(1<<2) != 0 {
		return 0, nil // NULL
	}
	v := p[1+nullBytes:]
	c := cols[0]
	switch c.typ {
	case typeTiny:
		return fixedInt(v, 1, c.unsigned)
	case typeShort, typeYear:
		return fixedInt(v, 2, c.unsigned)
	case typeLong, typeInt24:
		return fixedInt(v, 4, c.unsigned)
	case typeLongLong:
		return fixedInt(v, 8, c.unsigned)
	case typeFloat, typeDouble:
		var f float64
		if c.typ == typeFloat {
			if len(v) < 4 {
				return 0, errMalformedRow
			}
			f = float64(math.Float32frombits(binary.LittleEndian.Uint32(v)))
		} else {
			if len(v) < 8 {
				return 0, errMalformedRow
			}
			f = math.Float64frombits(binary.LittleEndian.Uint64(v))
		}
		if f != math.Trunc(f) || math.Abs(f) > math.MaxInt64 {
			return 0, fmt.Errorf("value %v is not an integer", f)
		}
		return int64(f), nil
	case typeDecimal, typeNewDecimal, typeVarchar, typeVarString, typeString, 0xfc, 0xfb, 0xfa, 0xf9:
		n, size, ok := lenenc(v)
		if !ok || n > uint64(len(v)) || len(v) < size+int(n) {
			return 0, errMalformedRow
		}
		s := string(v[size : size+int(n)])
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("converting %q to an integer: %w", s, err)
		}
		return i, nil
	}
	return 0, fmt.Errorf("column type %d is not an integer", c.typ)
}

// fixedInt decodes a little-endian integer of size bytes (1, 2, 4 or 8),
// sign-extending it unless the column is unsigned.
func fixedInt(v []byte, size int, unsigned bool) (int64, error) {
	if len(v) < size {
		return 0, errMalformedRow
	}
	var u uint64
	for i := size - 1; i >= 0; i-- {
		u = u<<8 | uint64(v[i])
	}
	if !unsigned {
		shift := 64 - 8*size
		return int64(u<<shift) >> shift, nil
	}
	if u > math.MaxInt64 {
		return 0, fmt.Errorf("value %d overflows int64", u)
	}
	return int64(u), nil
}

// wireEnabled: FAIRBENCH_MYSQL_WIRE=off runs every statement through
// go-sql-driver (to compare the two paths).
func wireEnabled() bool { return os.Getenv("FAIRBENCH_MYSQL_WIRE") != "off" }
