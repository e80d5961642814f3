package live

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/fairbench/fairbench/internal/redact"
)

// DefaultAddr is where --serve listens without an address: loopback, a
// port the kernel picks.
const DefaultAddr = "127.0.0.1:0"

// MinTokenLength is the shortest --serve-token taken: a token is all that
// keeps a page on the network from anyone who reaches the port.
const MinTokenLength = 16

// TokenHeader is the header that may carry the token instead of ?token=.
const TokenHeader = "X-Fairbench-Token"

// shutdownGrace bounds how long Close waits for a request in flight: Ctrl-C
// must stop run within a second.
const shutdownGrace = 300 * time.Millisecond

// Server serves a Board's page, its snapshot as JSON and the final report.
type Server struct {
	board    *Board
	token    string
	listener net.Listener
	http     *http.Server
	done     chan struct{}
	encoded  atomic.Pointer[encoded] // the last snapshot's JSON
}

// CheckAddr checks a --serve address and says whether it is loopback-only;
// one that is not needs a token (CheckToken).
func CheckAddr(addr string) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--serve %q: give HOST:PORT, e.g. %s (port 0: any free port)", addr, DefaultAddr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return false, fmt.Errorf("--serve %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// CheckToken checks a --serve-token: long enough, and without spaces or
// control characters (it travels in a URL and a header).
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return fmt.Errorf("--serve-token: give at least %d characters (e.g. from 'openssl rand -hex 16'); it is all that guards the page", MinTokenLength)
	}
	if i := strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r > unicode.MaxASCII }); i >= 0 {
		return errors.New("--serve-token: use printable ASCII without spaces (it travels in a URL and a header)")
	}
	return nil
}

// Serve listens on addr and serves b's page until Close; token, when set,
// is required of every request (?token= or the X-Fairbench-Token header).
// A non-loopback addr without a token is refused.
func Serve(addr, token string, b *Board) (*Server, error) {
	loopback, err := CheckAddr(addr)
	if err != nil {
		return nil, err
	}
	if token != "" {
		if err := CheckToken(token); err != nil {
			return nil, err
		}
		redact.AddSecret(token)
	} else if !loopback {
		return nil, fmt.Errorf("--serve %s is reachable from other machines: give --serve-token TOKEN too (or serve on 127.0.0.1)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--serve %s: %v", addr, err)
	}
	s := &Server{board: b, token: token, listener: ln, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /live.json", s.snapshot)
	mux.HandleFunc("GET /report", s.report)
	s.http = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 10 * time.Second,
		ErrorLog: nil, MaxHeaderBytes: 16 << 10}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln) // ends with Close
	}()
	return s, nil
}

// URL is the page's address (without the token).
func (s *Server) URL() string {
	a := s.listener.Addr().(*net.TCPAddr)
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "127.0.0.1" // reachable here too; other machines use this host's name
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(a.Port)) + "/"
}

// TokenRequired says whether requests need the token.
func (s *Server) TokenRequired() bool { return s.token != "" }

// Close stops serving: requests in flight get shutdownGrace to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = s.http.Close()
	}
	<-s.done
	return err
}

// guard refuses requests without the token (when one is set), and gives
// every answer headers that keep the page self-contained.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if s.token != "" {
			got := r.URL.Query().Get("token")
			if v := r.Header.Get(TokenHeader); v != "" {
				got = v
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
				http.Error(w, "this page needs its token: open it with ?token=TOKEN (the run's --serve-token), or send the "+TokenHeader+" header", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// pageCSP lets the page run only its own inline script and style and ask
// only its own server: nothing leaves it.
const pageCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'"

var pageTemplate = template.Must(template.New("live").Parse(pageHTML))

type pageData struct {
	Title         string
	TokenRequired bool
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP)
	_ = pageTemplate.Execute(w, pageData{Title: s.board.Snapshot().Title, TokenRequired: s.token != ""})
}

// encoded is a snapshot's JSON, kept for the readers of the same version.
type encoded struct {
	version int64
	body    []byte
}

// snapshot serves the last snapshot as JSON: encoded once per version
// however many pages poll it (a full chart takes about a millisecond).
func (s *Server) snapshot(w http.ResponseWriter, r *http.Request) {
	snap := s.board.Snapshot()
	e := s.encoded.Load()
	if e == nil || e.version != snap.Version {
		body, err := json.Marshal(snap)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		e = &encoded{version: snap.Version, body: body}
		s.encoded.Store(e)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(e.body)
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	html := s.board.Report()
	if html == nil {
		http.Error(w, "the report is served once the study has ended", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The report is the self-contained file 'report --format html' writes:
	// inline script and style, no requests.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'")
	_, _ = w.Write(html)
}
