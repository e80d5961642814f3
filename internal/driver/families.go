package driver

import (
	"context"
	"errors"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// The capability families beyond SQL. Each is a first shape, fixed enough for
// workloads to be written against it; the engine that first implements one
// (Redis/Valkey for KV, a MongoDB-compatible store for Document, OpenSearch for
// Search, ClickHouse for Analytics) may refine it. A session implements the
// families its engine speaks; a workload asserts the one it needs.

// KV is the capability of key-value engines (Redis, Valkey, embedded KV
// stores). Every exchange is a pipeline; a depth of one is a plain request.
type KV interface {
	Conn
	// Pipeline sends cmds at once and fills replies[i] for cmds[i]. Each
	// reply's Latency runs from the pipeline's send to that reply's arrival,
	// as memtier_benchmark measures inside a pipeline. Errors the server
	// answers go into the replies; a returned error means the session is
	// unusable (connection lost) and the replies are not valid.
	Pipeline(ctx context.Context, cmds []KVCommand, replies []KVReply) error
}

// KVStream is the optional capability of KV sessions that can keep requests
// outstanding: write commands and read their replies independently, as
// memtier_benchmark keeps a window of --pipeline requests on each connection
// and refills it after every read (shard_connection.cpp, fill_pipeline). The
// engine answers in order (RESP does), so the session keeps the send time of
// each command in flight and times each reply from its own command's send.
// A session that does not implement it (an embedded engine's in-process
// calls, a cluster session routing by key, a library's pipeline) runs
// pipelines only.
type KVStream interface {
	KV
	// Send writes cmds after the commands already in flight, without
	// waiting for any reply. The commands' keys and values may be reused
	// once it returns.
	Send(ctx context.Context, cmds []KVCommand) error
	// Receive waits for the oldest command's reply and fills replies[0..n)
	// with it and every further reply that has already arrived, oldest
	// first, up to len(replies) and the commands in flight. Each reply's
	// Latency runs from its own command's send to its arrival; Values are
	// valid until the next Receive. It returns 0 with no commands in flight.
	// A returned error means the session is unusable; in-flight commands are
	// lost.
	Receive(ctx context.Context, replies []KVReply) (n int, err error)
	// InFlight is how many commands were sent and not yet received.
	InFlight() int
}

// KVCommand is one command of a pipeline.
type KVCommand struct {
	Name  string // "GET", "SET", "INCR", ...
	Key   []byte
	Value []byte   // SET's value
	Args  [][]byte // further arguments, after Key and Value
}

// KVReply is the reply to one command of a pipeline.
type KVReply struct {
	Value []byte // valid until the session's next Pipeline
	// Elements are an array reply's elements that are strings or numbers
	// (HGETALL's fields and values, ZRANGE's members), valid until the
	// session's next Pipeline; nested arrays and nil elements are left out.
	// Empty for an empty array and for a reply that is not an array. A
	// session may reuse the slice a caller's reply already holds.
	Elements [][]byte
	Miss     bool  // a nil reply (GET of a missing key)
	Err      error // the server's error reply, if any
	Class    result.ErrorClass
	// Bytes is the command's and the reply's size on the wire, sent and
	// received together, as memtier_benchmark's KB/sec counts them.
	Bytes   int64
	Latency time.Duration
	// Redirect is "moved" or "ask" when a cluster node redirected the
	// command and another node answered it (the latency includes the detour).
	Redirect string
}

// KVPrefixDeleter is the optional capability of KV sessions to delete every
// key under a prefix (Redis and Valkey: SCAN MATCH prefix* and UNLINK, on
// every node of a cluster; embedded engines: a range delete), never FLUSHDB.
// Workloads do not clean up with it: a prefix may hold keys fairbench did not
// write, so they delete the keys they recorded (internal/ownership).
type KVPrefixDeleter interface {
	DeletePrefix(ctx context.Context, prefix string) (deleted int64, err error)
}

// KVPrefixScanner is the optional capability of KV sessions to list the keys
// under a prefix (Redis and Valkey: SCAN MATCH prefix* COUNT 1000, on every
// master of a cluster; embedded engines: an ordered walk from the prefix).
// Workloads and tool cells use it to find keys they did not write before
// writing theirs.
type KVPrefixScanner interface {
	// ScanPrefix calls fn with batches of the keys under prefix until fn
	// returns false or every key was seen. A batch is fn's to keep, and fn
	// may use the session. A key present throughout the scan is seen (on
	// Redis possibly twice); one written or deleted during it may not be.
	ScanPrefix(ctx context.Context, prefix string, fn func(keys []string) (more bool)) error
}

// KVKeyCounter is the optional capability of KV sessions whose ScanPrefix
// walks the whole database, not only the prefix (Redis's SCAN): KeyCount is
// how many keys that walk visits (DBSIZE, summed over a cluster's masters),
// so that a caller with a short list of keys to look for can ask for those
// keys instead.
type KVKeyCounter interface {
	KeyCount(ctx context.Context) (int64, error)
}

// Doc is a document as workloads build and read it.
type Doc = map[string]any

// Document is the capability of document stores (MongoDB-compatible).
type Document interface {
	Conn
	// Insert stores documents, each with its "_id"; per-document failures
	// (duplicate keys) come back in the result, not as the error.
	Insert(ctx context.Context, collection string, docs []Doc) (BulkResult, error)
	// Get reads one document by id, the named fields only (all when nil).
	Get(ctx context.Context, collection, id string, fields []string) (Doc, bool, error)
	// Update sets fields of one document; false when no document has the id.
	Update(ctx context.Context, collection, id string, set Doc) (bool, error)
	// Scan reads up to n documents in id order from startID and returns how many came.
	Scan(ctx context.Context, collection, startID string, n int, fields []string) (int, error)
}

// DocumentAdmin is the optional capability of document sessions to manage
// collections of the session's database: what workloads need to find their
// own data, clean it up and check it, and what tests compare with fairbench's
// counts. Workloads mark the collections they create themselves (a marker
// document), and drop only those.
type DocumentAdmin interface {
	// Collections lists the collections of the database.
	Collections(ctx context.Context) ([]string, error)
	// Count counts the documents of a collection (exactly, not an estimate).
	Count(ctx context.Context, collection string) (int64, error)
	// Drop drops a collection; dropping one that does not exist is no error.
	Drop(ctx context.Context, collection string) error
	// OpCounters returns the server's cumulative operation counters
	// (MongoDB's serverStatus opcounters: insert, query, update, delete,
	// getmore, command); ok is false where the server keeps none.
	OpCounters(ctx context.Context) (counters map[string]int64, ok bool, err error)
}

// Search is the capability of search engines (OpenSearch, Elasticsearch).
type Search interface {
	Conn
	// Bulk sends body, an NDJSON body of the _bulk API holding items actions
	// (an action line, then a source line for index actions), to index in
	// one request. Items the engine refused are listed in the result, with
	// 429 items (a full write queue) classed result.ErrThrottled; a request
	// the engine refused whole is an error (HTTP 429: ErrThrottled). The
	// workload builds the body, so that building costs nothing per call and
	// action lines (ids for updates) stay the workload's choice.
	Bulk(ctx context.Context, index string, body []byte, items int) (BulkResult, error)
	// Query runs one search request body against index.
	Query(ctx context.Context, index string, body []byte) (SearchResult, error)
}

// SearchAdmin is the optional capability of search sessions to manage the
// indexes workloads own: workloads mark theirs in the mapping's _meta and
// delete only those.
type SearchAdmin interface {
	// CreateIndex creates index with body (settings, mappings and their
	// _meta, as the create-index API takes them). An index that exists
	// already is an error wrapping ErrIndexExists.
	CreateIndex(ctx context.Context, index string, body []byte) error
	// IndexMeta returns the _meta of index's mapping (nil when it has none);
	// exists is false when there is no such index.
	IndexMeta(ctx context.Context, index string) (meta map[string]any, exists bool, err error)
	// DeleteIndex deletes index; deleting one that does not exist is no error.
	DeleteIndex(ctx context.Context, index string) error
	// Refresh makes everything indexed so far visible to searches.
	Refresh(ctx context.Context, index string) error
	// Count counts index's documents (after a refresh, exactly).
	Count(ctx context.Context, index string) (int64, error)
}

// ErrIndexExists is wrapped by SearchAdmin.CreateIndex for an index that
// exists already.
var ErrIndexExists = errors.New("the index exists already")

// BulkResult reports a bulk request item by item.
type BulkResult struct {
	Items  int         // items sent
	Failed []ItemError // items the engine refused
	Bytes  int64       // request size on the wire
	// Took is the engine's own time for the request, where it reports one
	// (OpenSearch's "took"); 0 otherwise.
	Took time.Duration
}

// ItemError is one refused item of a bulk request.
type ItemError struct {
	Index  int // position in the request (0-based, in items)
	Status int // the item's HTTP status (429: the write queue was full)
	Class  result.ErrorClass
	Reason string // the engine's text, for the first few only
}

// SearchResult is what a query found.
type SearchResult struct {
	Hits int64
	Took time.Duration // the engine's own time, where it reports one
}

// Analytics is the capability of analytical engines (ClickHouse, and SQL
// engines running SSB or ClickBench queries): one query at a time, its rows
// streamed and counted, with the time the server says it took.
type Analytics interface {
	Conn
	// Analyze runs query and reads its whole result, handing each row's values
	// to each (nil: rows are read and dropped).
	Analyze(ctx context.Context, query string, each func(values []any) error) (QueryStats, error)
}

// QueryStats describes one analytical query's execution.
type QueryStats struct {
	Rows  int64 // result rows read
	Bytes int64 // result bytes read, where the client sees them
	// ServerElapsed is the engine's own elapsed time (ClickHouse's query
	// progress), 0 where it reports none.
	ServerElapsed time.Duration
	// RowsRead and BytesRead are what the engine scanned, where it says.
	RowsRead, BytesRead int64
}

// Family names a capability family, for the checks that run before any
// session exists (validate): a session's type assertions are the truth at
// run time, a driver's Offers says the same beforehand.
type Family string

// The capability families, as messages name them.
const (
	FamilySQL       Family = "SQL"
	FamilyKV        Family = "key-value"
	FamilyDocument  Family = "document"
	FamilySearch    Family = "search"
	FamilyAnalytics Family = "analytics"
)

// offerer is a Driver that declares the families its sessions offer.
type offerer interface {
	Offers() []Family
}

// OffersFor returns the families the driver of rawURL declares; ok is
// false when the URL has no driver or its driver declares none, so that a
// check before the run stays silent rather than guess.
func OffersFor(rawURL string) ([]Family, bool) {
	d, err := ForURL(rawURL)
	if err != nil {
		return nil, false
	}
	o, ok := d.(offerer)
	if !ok {
		return nil, false
	}
	return o.Offers(), true
}
