// Package opensearch is fairbench's driver for OpenSearch and Elasticsearch
// (opensearch://, opensearchs://, elasticsearch:// and elasticsearchs://
// targets), for the search workloads: sessions implement driver.Search (the
// _bulk and _search APIs) and driver.SearchAdmin, and the client describes
// the cluster (driver.Environment).
//
// Requests go through the transport of opensearch-go (v4): its node list
// (the URL may name several nodes, taken in turn), authentication and TLS,
// with retries off, so that a 429 reaches the workload as a throttled
// request instead of being hidden by a retry. Sessions share the client's
// keep-alive connections, the way OpenSearch Benchmark's clients share one
// connection pool, and each reads its answers into a buffer of its own. A
// _bulk answer is not decoded unless it says some items failed: its
// "errors" flag is found by a scan, as OpenSearch Benchmark only looks at
// that flag unless asked for details.
package opensearch

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	osgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchtransport"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

func init() {
	driver.Register(Driver{}, "opensearch://", "opensearchs://", "elasticsearch://", "elasticsearchs://")
}

var (
	_ driver.Search      = (*conn)(nil)
	_ driver.SearchAdmin = (*conn)(nil)
	_ driver.Path        = (*conn)(nil)
	_ driver.Environment = (*client)(nil)
)

// clientPath names the client code path every run records.
const clientPath = "opensearch-go"

const (
	// openTimeout bounds Open's checks by default (the URL's timeout): a wrong address or a sick cluster
	// must be told within seconds.
	openTimeout = 10 * time.Second
	dialTimeout = 5 * time.Second
	// maxIdlePerHost keeps a connection per session alive between requests:
	// with Go's default of 2, a run of 256 clients on one node would open
	// and close connections all the time and measure that.
	maxIdlePerHost = 1024
)

// Driver opens OpenSearch and Elasticsearch clients.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "opensearch" }

// Open implements driver.Driver: it parses the URL, builds the shared
// client, and checks within 10 s that a node answers, accepts the
// credentials, and that the cluster is not red.
func (Driver) Open(ctx context.Context, t driver.Target, _ driver.Options) (driver.Client, error) {
	cfg, err := parseURL(t.URL)
	if err != nil {
		return nil, err
	}
	oc, err := newClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.redacted, cfg.secrets.ScrubErr(err))
	}
	c := &client{cfg: cfg, oc: oc}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if err := c.check(ctx); err != nil {
		_ = oc.Close()
		return nil, err
	}
	return c, nil
}

// newClient builds the opensearch-go client with a transport of fairbench's.
func newClient(cfg config) (*osgo.Client, error) {
	tr := &http.Transport{
		// A benchmark's requests go straight to the nodes: a proxy from the
		// environment would be measured too.
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     cfg.tlsConfig,
		TLSHandshakeTimeout: dialTimeout,
		MaxIdleConnsPerHost: maxIdlePerHost,
		IdleConnTimeout:     90 * time.Second,
		// Uncompressed answers, as OpenSearch Benchmark asks for them by
		// default: gzip would add CPU on both sides to what is measured.
		DisableCompression: true,
		// HTTP/1.1 over TLS too, one request per connection at a time, like
		// the other benchmark clients.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	h := http.Header{}
	switch {
	case cfg.apiKey != "":
		h.Set("Authorization", "ApiKey "+cfg.apiKey)
	case cfg.user != "":
		// Set here rather than through Config.Username, which the library
		// ignores when the password is empty.
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cfg.user+":"+cfg.password)))
	}
	off := false
	return osgo.NewClient(osgo.Config{
		Addresses:           cfg.addresses,
		Header:              h,
		Transport:           tr,
		DisableRetry:        true,
		CompressRequestBody: false,
		// No discovery: the nodes are those the URL names, whatever
		// OPENSEARCH_GO_ROUTER says.
		DiscoverNodesOnStart: &off,
	})
}

// client is one target's shared opensearch-go client.
type client struct {
	cfg config
	oc  *osgo.Client
	id  identity // the engine and version, as Open found them
	// maxBody, when set, bounds every answer read (the server view's); the
	// workloads' answers are as large as the requests they chose.
	maxBody int64
	driver.ClientState
}

// Session implements driver.Client: a handle on the shared client and its
// keep-alive connections, with a response buffer of its own.
func (c *client) Session(context.Context) (driver.Conn, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	return &conn{c: c}, nil
}

// Close implements driver.Client: it stops the library's background work
// and closes the idle connections.
func (c *client) Close(context.Context) error {
	return c.CloseOnce(c.oc.Close)
}

// conn is one worker's session. It is not safe for concurrent use (the
// buffer is its own), as a session belongs to one worker.
type conn struct {
	c   *client
	buf bytes.Buffer
	// The last index's _bulk path: workloads send to one index call after call.
	bulkIndex, bulkPath string
}

// Close implements driver.Conn; the connections belong to the client.
func (s *conn) Close(context.Context) error { return nil }

// Classify implements driver.Conn.
func (s *conn) Classify(err error) result.ErrorClass { return classify(err) }

// Environment implements driver.Environment for workloads that ask a
// session: the client's description.
func (s *conn) Environment(ctx context.Context) (result.Database, error) { return s.c.Environment(ctx) }

// ClientPath implements driver.Path.
func (s *conn) ClientPath() string { return clientPath }

// do sends one request and reads the whole answer into buf, which it
// resets; it returns the HTTP status. A non-2xx status is no error here.
func (c *client) do(ctx context.Context, method, path string, body []byte, contentType string, buf *bytes.Buffer) (int, error) {
	status, _, err := c.send(ctx, method, path, body, contentType, buf)
	return status, err
}

// send is do that returns the answer's header too.
func (c *client) send(ctx context.Context, method, path string, body []byte, contentType string, buf *bytes.Buffer) (int, http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, path, rd)
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.oc.Stream(req)
	if res != nil && res.Body != nil {
		defer res.Body.Close()
	}
	if res == nil || err != nil {
		if err == nil {
			err = errors.New("no response")
		}
		return 0, nil, c.cfg.secrets.ScrubErr(err)
	}
	buf.Reset()
	var answer io.Reader = res.Body
	if c.maxBody > 0 {
		answer = io.LimitReader(res.Body, c.maxBody+1)
	}
	if _, err := buf.ReadFrom(answer); err != nil {
		return 0, nil, c.cfg.secrets.ScrubErr(fmt.Errorf("%s %s: reading the response: %w", method, path, err))
	}
	if c.maxBody > 0 && int64(buf.Len()) > c.maxBody {
		return 0, nil, fmt.Errorf("%s %s: the answer is larger than %d bytes, more than it can be", method, path, c.maxBody)
	}
	return res.StatusCode, res.Header, nil
}

// Error is a request the engine refused as a whole.
type Error struct {
	Op     string // what was asked ("bulk into logs")
	Status int    // HTTP status
	Type   string // the engine's error type (es_rejected_execution_exception, ...)
	Reason string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: HTTP %d", e.Op, e.Status)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// engineError is the error object of OpenSearch's and Elasticsearch's answers.
type engineError struct {
	Type     string `json:"type"`
	Reason   string `json:"reason"`
	CausedBy *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"caused_by"`
}

// text is the error's type and reason, with its cause's reason.
func (e engineError) text() string {
	s := e.Type + ": " + e.Reason
	if e.CausedBy != nil && e.CausedBy.Reason != "" {
		s += " (caused by " + e.CausedBy.Type + ": " + e.CausedBy.Reason + ")"
	}
	// One line: the parser's texts run over several ("\n at [Source: ...").
	return strings.Join(strings.Fields(s), " ")
}

// httpError reads the engine's error answer: {"error":{...},"status":N},
// or {"error":"text"} for some requests, or a body that is no JSON at all
// (a proxy's page).
func (c *client) httpError(op string, status int, body []byte) error {
	e := &Error{Op: op, Status: status}
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &r) == nil && len(r.Error) > 0 {
		var ee engineError
		if json.Unmarshal(r.Error, &ee) == nil && ee.Type != "" {
			e.Type, e.Reason = ee.Type, strings.TrimPrefix(ee.text(), ee.Type+": ")
		} else {
			var s string
			if json.Unmarshal(r.Error, &s) == nil {
				e.Reason = s
			}
		}
	}
	if e.Type == "" && e.Reason == "" {
		b := bytes.TrimSpace(body)
		if len(b) > 200 {
			b = b[:200]
		}
		e.Reason = string(b)
	}
	e.Reason = c.cfg.secrets.Scrub(e.Reason)
	return e
}

const rejected = "es_rejected_execution_exception"

// classifyItem maps a refused item's (or request's) status and error type.
func classifyItem(status int, typ string) result.ErrorClass {
	switch {
	case status == http.StatusTooManyRequests || typ == rejected:
		return result.ErrThrottled
	case status == http.StatusConflict || typ == "version_conflict_engine_exception":
		return result.ErrConstraint
	}
	return result.ErrOther
}

// classify maps a session's error to an error class.
func classify(err error) result.ErrorClass {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return classifyItem(e.Status, e.Type)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return result.ErrTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return result.ErrTimeout
	}
	if ne != nil || errors.Is(err, driver.ErrClientClosed) || errors.Is(err, opensearchtransport.ErrNoConnections) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return result.ErrConnection
	}
	return result.ErrOther
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilySearch} }
