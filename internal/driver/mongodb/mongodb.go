// Package mongodb is fairbench's driver for MongoDB and servers of its wire
// protocol (FerretDB), for mongodb:// and mongodb+srv:// targets, through
// the official Go driver (go.mongodb.org/mongo-driver/v2).
//
// One *mongo.Client per target serves every session from its pool, the way
// YCSB's mongodb binding shares one MongoClient between its threads; a
// session is a light handle bound to the URL's database that keeps its own
// scratch buffers, so that the measured calls (driver.Document) encode their
// BSON without reflection and allocate little. Sessions also implement
// driver.DocumentAdmin, and the client describes the server
// (driver.Environment): MongoDB or FerretDB, version and storage engine.
package mongodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/version"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "mongodb://", "mongodb+srv://") }

// clientPath names the client code path every run records.
var clientPath = "mongo-go-driver v" + version.Driver

// Driver opens MongoDB clients.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "mongodb" }

// Open implements driver.Driver: it parses the URL, connects, and pings the
// server, so that a wrong address, TLS setting or credential fails here,
// within the server selection timeout, with the URL (redacted) in the message.
func (Driver) Open(ctx context.Context, t driver.Target, _ driver.Options) (driver.Client, error) {
	cfg, err := parseURL(t.URL)
	if err != nil {
		return nil, err
	}
	mc, err := mongo.Connect(cfg.opts)
	if err != nil {
		return nil, fmt.Errorf("MongoDB URL %s: %w", cfg.redacted, cfg.secrets.ScrubErr(err))
	}
	// Ping the primary: writes go there, and a secondary answering would
	// hide a replica set without one.
	// The driver's server selection ends at its own timeout, with the reason;
	// the attempt's bound, a second later, only backs it up.
	att, cancel := driver.StartConnecting(ctx, *cfg.opts.ServerSelectionTimeout+time.Second, "serverSelectionTimeoutMS")
	defer cancel()
	ping := func(ctx context.Context) error { return mc.Ping(ctx, readpref.Primary()) }
	if err := att.Await(ping, func() { _ = mc.Disconnect(context.Background()) }); err != nil {
		if e := att.Interrupted(err, "MongoDB server of "+cfg.redacted); e != nil {
			return nil, e
		}
		// Server selection ends at its timeout whatever failed, the reason
		// (refused, TLS) inside: it stays in the message.
		var waited string
		if errors.Is(err, context.DeadlineExceeded) {
			waited = fmt.Sprintf(", timed out after %v (serverSelectionTimeoutMS in the URL sets how long to wait)", *cfg.opts.ServerSelectionTimeout)
		}
		return nil, fmt.Errorf("MongoDB server of %s does not answer%s: %w (is it running, and do the URL's host, port, tls and credentials match it?)",
			cfg.redacted, waited, cfg.secrets.ScrubErr(err))
	}
	return &client{cfg: cfg, mc: mc, db: mc.Database(cfg.database)}, nil
}

// client is one target's shared *mongo.Client.
type client struct {
	cfg config
	mc  *mongo.Client
	db  *mongo.Database
	driver.ClientState
}

// Session implements driver.Client: a handle on the shared pool, bound to
// the URL's database. It dials nothing itself; the pool opens a connection
// when the session's first operation needs one.
func (c *client) Session(context.Context) (driver.Conn, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	return &conn{c: c, colls: map[string]*mongo.Collection{}}, nil
}

// Close implements driver.Client: it disconnects the pool, which ends the
// sessions still open.
func (c *client) Close(ctx context.Context) error {
	return c.CloseOnce(func() error { return c.cfg.secrets.ScrubErr(c.mc.Disconnect(ctx)) })
}

// conn is one worker's session. It is not safe for concurrent use (the
// scratch buffers are its own), as a session belongs to one worker.
type conn struct {
	c     *client
	colls map[string]*mongo.Collection
	enc   encoder
	// The projection and the options built from it for the last field list
	// seen: workloads ask for the same fields call after call.
	projFields []string
	projAll    bool
	proj       []byte
	findOne    findOneOpts
	finds      map[int]findOpts
	failures   []driver.ItemError
}

func (s *conn) coll(name string) *mongo.Collection {
	if c, ok := s.colls[name]; ok {
		return c
	}
	c := s.c.db.Collection(name)
	s.colls[name] = c
	return c
}

// Close implements driver.Conn. The connection goes back to the shared
// pool; nothing is closed.
func (s *conn) Close(context.Context) error { return nil }

// Classify implements driver.Conn.
func (s *conn) Classify(err error) result.ErrorClass { return classify(err) }

// ClientPath implements driver.Path.
func (s *conn) ClientPath() string { return clientPath }

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilyDocument} }
