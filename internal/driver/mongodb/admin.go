package mongodb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

var emptyFilter = bson.D{}

// Collections implements driver.DocumentAdmin.
func (s *conn) Collections(ctx context.Context) ([]string, error) {
	names, err := s.c.db.ListCollectionNames(ctx, emptyFilter)
	return names, s.c.cfg.secrets.ScrubErr(err)
}

// Count implements driver.DocumentAdmin: CountDocuments, an exact count
// (EstimatedDocumentCount reads metadata that can lag).
func (s *conn) Count(ctx context.Context, collection string) (int64, error) {
	n, err := s.coll(collection).CountDocuments(ctx, emptyFilter)
	return n, s.c.cfg.secrets.ScrubErr(err)
}

// Drop implements driver.DocumentAdmin; the driver already takes
// NamespaceNotFound (no such collection) for success.
func (s *conn) Drop(ctx context.Context, collection string) error {
	err := s.coll(collection).Drop(ctx)
	delete(s.colls, collection)
	return s.c.cfg.secrets.ScrubErr(err)
}

// OpCounters implements driver.DocumentAdmin from serverStatus's opcounters.
// FerretDB v1 answers serverStatus without opcounters (it has only
// metrics.commands, a count of commands, where MongoDB counts an insert of
// 1000 documents as 1000 inserts), so ok is false there rather than a count
// of something else under the same names.
func (s *conn) OpCounters(ctx context.Context) (map[string]int64, bool, error) {
	raw, err := s.c.db.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return nil, false, s.c.cfg.secrets.ScrubErr(fmt.Errorf("serverStatus: %w", err))
	}
	v, err := bsoncore.Document(raw).LookupErr("opcounters")
	if err != nil {
		return nil, false, nil
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return nil, false, nil
	}
	elems, err := doc.Elements()
	if err != nil {
		return nil, false, fmt.Errorf("serverStatus opcounters: %w", err)
	}
	out := make(map[string]int64, len(elems))
	for _, e := range elems {
		if n, ok := asInt64(e.Value()); ok {
			out[e.Key()] = n
		}
	}
	return out, true, nil
}

// Environment implements driver.Environment: engine ("mongodb", or
// "ferretdb" when buildInfo carries ferretdbVersion), version (FerretDB's
// own; its MongoDB-compatible one as compat_version), storage engine where
// serverStatus names one, and the URL's settings that change what is
// measured.
func (c *client) Environment(ctx context.Context) (result.Database, error) {
	env := result.Database{Engine: "mongodb", Driver: clientPath}
	var bi struct {
		Version         string `bson:"version"`
		GitVersion      string `bson:"gitVersion"`
		FerretDBVersion string `bson:"ferretdbVersion"`
		Bits            int    `bson:"bits"`
		Debug           bool   `bson:"debug"`
	}
	if err := c.db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		return result.Database{}, c.cfg.secrets.ScrubErr(fmt.Errorf("buildInfo: %w", err))
	}
	env.Version = bi.Version
	if bi.FerretDBVersion != "" {
		env.Engine = "ferretdb"
		env.Version = bi.FerretDBVersion
		env.Set("compat_version", bi.Version)
	} else if bi.GitVersion != "" {
		env.Set("git_version", bi.GitVersion)
	}
	var ss struct {
		Process       string `bson:"process"`
		StorageEngine struct {
			Name string `bson:"name"`
		} `bson:"storageEngine"`
		Repl *struct {
			SetName string `bson:"setName"`
		} `bson:"repl"`
		Uptime     float64 `bson:"uptime"`
		WiredTiger *struct {
			Cache struct {
				Max float64 `bson:"maximum bytes configured"`
			} `bson:"cache"`
		} `bson:"wiredTiger"`
	}
	if err := c.db.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&ss); err == nil {
		if ss.Process != "" {
			env.Set("process", ss.Process)
		}
		if ss.StorageEngine.Name != "" {
			env.Set("storage_engine", ss.StorageEngine.Name)
		}
		if ss.Repl != nil && ss.Repl.SetName != "" {
			env.Set("replica_set", ss.Repl.SetName)
		}
		env.Set("uptime_seconds", int64(ss.Uptime))
		if ss.WiredTiger != nil && ss.WiredTiger.Cache.Max > 0 {
			env.Set(cacheFact, int64(ss.WiredTiger.Cache.Max))
		}
	} else {
		// Managed services may refuse serverStatus to a plain user.
		env.Set("server_status_error", c.cfg.secrets.Scrub(err.Error()))
	}
	o := c.cfg.opts
	settings := map[string]string{"database": c.cfg.database}
	if o.WriteConcern != nil {
		if o.WriteConcern.W != nil {
			settings["w"] = fmt.Sprint(o.WriteConcern.W)
		}
		if o.WriteConcern.Journal != nil {
			settings["journal"] = fmt.Sprint(*o.WriteConcern.Journal)
		}
	}
	if o.ReadPreference != nil {
		settings["read_preference"] = o.ReadPreference.Mode().String()
	}
	if o.ReadConcern != nil && o.ReadConcern.Level != "" {
		settings["read_concern"] = o.ReadConcern.Level
	}
	if o.MaxPoolSize != nil {
		settings["max_pool_size"] = fmt.Sprint(*o.MaxPoolSize)
	}
	if len(o.Compressors) > 0 {
		settings["compressors"] = fmt.Sprint(o.Compressors)
	}
	env.Settings = settings
	tlsFacts := map[string]any{"enabled": c.cfg.tls}
	if c.cfg.tls {
		tlsFacts["verified"] = !c.cfg.insecure
	}
	env.Set("tls", tlsFacts)
	return env, nil
}

// classify maps a session's error to an error class.
func classify(err error) result.ErrorClass {
	if err == nil {
		return ""
	}
	if mongo.IsDuplicateKeyError(err) {
		return result.ErrConstraint
	}
	// No server could be selected in time: the server is unreachable (the
	// error wraps the deadline, so it is checked before timeouts).
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) || errors.Is(err, mongo.ErrClientDisconnected) || errors.Is(err, driver.ErrClientClosed) {
		return result.ErrConnection
	}
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorCode(50) { // MaxTimeMSExpired
		return result.ErrTimeout
	}
	if mongo.IsTimeout(err) {
		return result.ErrTimeout
	}
	if mongo.IsNetworkError(err) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return result.ErrConnection
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return result.ErrConnection
	}
	return result.ErrOther
}

// classifyCode maps a server error code of one written document.
func classifyCode(code int) result.ErrorClass {
	switch code {
	case 11000, 11001, 12582:
		return result.ErrConstraint
	case 50:
		return result.ErrTimeout
	}
	return result.ErrOther
}

// errNoConnectionCount is a serverStatus without connections.available
// (FerretDB v1): the limit is unknown, and CheckConnections lets the run go.
var errNoConnectionCount = errors.New("serverStatus has no connections.available")

// ConnectionLimit implements driver.ConnectionLimiter from serverStatus's
// connections.available: the connections the server accepts beyond those
// open now (net.maxIncomingConnections, or the process's file limit, minus
// the current ones). The asking session's own connection is already counted
// as current, and it closes before the clients connect, so it is added back.
func (s *conn) ConnectionLimit(ctx context.Context) (int, string, error) {
	raw, err := s.c.db.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return 0, "", s.c.cfg.secrets.ScrubErr(fmt.Errorf("serverStatus: %w", err))
	}
	avail, err := bsoncore.Document(raw).LookupErr("connections", "available")
	if err != nil {
		return 0, "", errNoConnectionCount
	}
	n, ok := asInt64(avail)
	if !ok {
		return 0, "", errNoConnectionCount
	}
	detail := fmt.Sprintf("serverStatus connections.available %d", n)
	if cur, err := bsoncore.Document(raw).LookupErr("connections", "current"); err == nil {
		if c, ok := asInt64(cur); ok {
			detail += fmt.Sprintf(", %d open now", c)
		}
	}
	return int(n) + 1, detail, nil
}
