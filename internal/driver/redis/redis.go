// Package redis is fairbench's driver for Redis and Valkey (redis://,
// rediss://, valkey://, valkeys://), standalone or in cluster mode.
//
// The measured commands run on fairbench's own RESP2 path (resp.go,
// session.go): a pipeline is written with one call and each reply is timed
// from the pipeline's send to the read that brought it, which is how
// memtier_benchmark times requests inside a pipeline. The maintained clients
// (go-redis, rueidis) return a pipeline's replies together, so every reply of
// a 16-deep pipeline would carry the last one's latency; URL parameter
// client=go-redis runs the measured commands through go-redis anyway, for
// comparison (bench/kv.sh measures both). Everything that is not measured —
// the server's description (INFO, CONFIG GET), the cluster's slot map
// (CLUSTER SLOTS), cleanup (SCAN and UNLINK on every master) — goes through
// go-redis.
//
// The socket of a standalone session is one of package fastpath when it is
// enabled, so that the runner can drive many connections from a few event
// loops, as memtier's threads drive theirs with libevent.
package redis

import (
	"context"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
)

func init() { driver.Register(Driver{}, "redis://", "rediss://", "valkey://", "valkeys://") }

// Driver opens Redis and Valkey clients.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "redis" }

// Open implements driver.Driver: it parses the URL, connects once to check
// the server and the credentials (a clear error within the connect timeout),
// and, in cluster mode, reads the slot map.
func (Driver) Open(ctx context.Context, t driver.Target, _ driver.Options) (driver.Client, error) {
	cfg, err := parseURL(t.URL)
	if err != nil {
		return nil, err
	}
	probe, err := dialNode(ctx, cfg, cfg.Addr, false)
	if err != nil {
		return nil, scrub(err, cfg)
	}
	probe.close()
	c := &client{cfg: cfg}
	tc, _ := cfg.tlsConfig()
	if cfg.Cluster {
		c.admin = goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: []string{cfg.Addr}, Username: cfg.User, Password: cfg.Password, TLSConfig: tc,
			DialTimeout: cfg.Timeout, Protocol: 2, DisableIdentity: true, PoolSize: 2,
		})
		if err := c.loadSlots(ctx); err != nil {
			c.admin.Close()
			return nil, scrub(err, cfg)
		}
	} else {
		c.admin = goredis.NewClient(&goredis.Options{
			Addr: cfg.Addr, Username: cfg.User, Password: cfg.Password, DB: cfg.DB, TLSConfig: tc,
			DialTimeout: cfg.Timeout, Protocol: 2, DisableIdentity: true, PoolSize: 2,
		})
	}
	return c, nil
}

// scrub keeps the password out of an error, whatever a library put in it
// (redact.List's rule).
func scrub(err error, cfg config) error {
	if cfg.Password == "" {
		return err
	}
	return redact.List{cfg.Password}.ScrubErr(err)
}

// client is one target's shared state: its configuration, a go-redis client
// for what is not measured, and in cluster mode the slot map every session
// routes by.
type client struct {
	cfg   config
	admin goredis.UniversalClient
	slots atomic.Pointer[slotMap]
	driver.ClientState
}

// Session implements driver.Client: a connection of its own (one per node in
// cluster mode, dialled when first needed).
func (c *client) Session(ctx context.Context) (driver.Conn, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	switch {
	case c.cfg.Library:
		return newLibrarySession(c), nil
	case c.cfg.Cluster:
		return &clusterSession{c: c, nodes: map[string]*node{}}, nil
	}
	n, err := dialNode(ctx, c.cfg, c.cfg.Addr, true)
	if err != nil {
		return nil, scrub(err, c.cfg)
	}
	return &session{n: n, c: c, path: "wire (RESP2, each reply timed as it arrives)"}, nil
}

// Close implements driver.Client.
func (c *client) Close(context.Context) error {
	return c.CloseOnce(c.admin.Close)
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilyKV} }
