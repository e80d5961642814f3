package redis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"

	"github.com/fairbench/fairbench/internal/result"
)

// What is not measured goes through go-redis: the server's description,
// cleanup, the connection limit.

// reportedConfig are the settings a comparison of two servers must see:
// memory limit and eviction, persistence, I/O threads, client limit. Managed
// services often refuse CONFIG; INFO then still gives most of it.
var reportedConfig = []string{
	"maxmemory", "maxmemory-policy", "appendonly", "appendfsync", "save", "io-threads",
	"io-threads-do-reads", "maxclients", "hz", "lazyfree-lazy-user-del", "activedefrag",
}

// infoFacts are the INFO fields kept with a run (server, memory,
// persistence): never addresses, paths, run ids or anything secret.
var infoFacts = []string{
	"redis_version", "valkey_version", "server_name", "redis_mode", "os", "arch_bits", "multiplexing_api",
	"gcc_version", "process_supervised", "mem_allocator", "maxmemory", "maxmemory_policy", "used_memory",
	"used_memory_rss", "total_system_memory", "io_threads_active", "aof_enabled", "rdb_bgsave_in_progress",
	"rdb_last_bgsave_status", "cluster_enabled",
}

// info parses INFO's "key:value" lines.
func info(text string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// Environment implements driver.Environment: the engine (Redis or Valkey,
// told apart by INFO's server_name and valkey_version), its version, the
// INFO facts and CONFIG settings above, TLS, and in cluster mode the number
// of masters.
func (c *client) Environment(ctx context.Context) (result.Database, error) {
	env := result.Database{Engine: "redis", Driver: "fairbench RESP2 (go-redis for INFO and CONFIG)"}
	if c.cfg.Library {
		env.Driver = "go-redis v9"
	}
	var node goredis.Cmdable = c.admin
	var masters int
	if cc, ok := c.admin.(*goredis.ClusterClient); ok {
		var mu sync.Mutex
		var first *goredis.Client
		err := cc.ForEachMaster(ctx, func(ctx context.Context, m *goredis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			masters++
			if first == nil {
				first = m
			}
			return nil
		})
		if err != nil {
			return result.Database{}, scrub(err, c.cfg)
		}
		env.Set("cluster_masters", int64(masters))
		node = first
	}
	text, err := node.Info(ctx, "server", "memory", "persistence", "cluster").Result()
	if err != nil {
		return result.Database{}, scrub(fmt.Errorf("INFO: %w", err), c.cfg)
	}
	facts := info(text)
	kept := map[string]string{}
	for _, k := range infoFacts {
		if v, ok := facts[k]; ok {
			kept[k] = v
		}
	}
	env.Set("info", kept)
	version := facts["redis_version"]
	if v := facts["valkey_version"]; v != "" || strings.EqualFold(facts["server_name"], "valkey") {
		env.Engine = "valkey"
		if v != "" {
			version = v
		}
	}
	env.Version = version
	settings := map[string]string{}
	if got, err := node.ConfigGet(ctx, "*").Result(); err == nil {
		for _, k := range reportedConfig {
			if v, ok := got[k]; ok {
				settings[k] = v
			}
		}
	} else {
		env.SettingsError = scrub(err, c.cfg).Error()
		// INFO has the memory limit and policy even where CONFIG is refused.
		for _, k := range []string{"maxmemory", "maxmemory_policy", "aof_enabled"} {
			if v, ok := facts[k]; ok {
				settings[strings.ReplaceAll(k, "_", "-")] = v
			}
		}
	}
	env.Settings = settings
	tlsFacts := map[string]any{"enabled": c.cfg.TLS}
	if c.cfg.TLS {
		tlsFacts["verified"] = !c.cfg.SkipVerify
	}
	env.Set("tls", tlsFacts)
	return env, nil
}

// globEscape quotes SCAN MATCH's pattern characters in a literal prefix.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DeletePrefix deletes every key under prefix with SCAN MATCH and UNLINK, on
// every master of a cluster: never FLUSHDB, which would take what fairbench
// did not create.
func (c *client) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	if prefix == "" {
		return 0, fmt.Errorf("refusing to delete every key: no prefix")
	}
	var total int64
	var mu sync.Mutex
	one := func(ctx context.Context, n goredis.Cmdable) error {
		var cursor uint64
		for {
			keys, next, err := n.Scan(ctx, cursor, globEscape(prefix)+"*", 1000).Result()
			if err != nil {
				return err
			}
			if len(keys) > 0 {
				d, err := n.Unlink(ctx, keys...).Result()
				if err != nil {
					return err
				}
				mu.Lock()
				total += d
				mu.Unlock()
			}
			if next == 0 {
				return nil
			}
			cursor = next
		}
	}
	err := c.forEachMaster(ctx, one)
	return total, scrub(err, c.cfg)
}

// forEachMaster runs fn on the server, or on every master of a cluster.
func (c *client) forEachMaster(ctx context.Context, fn func(context.Context, goredis.Cmdable) error) error {
	if cc, ok := c.admin.(*goredis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, m *goredis.Client) error { return fn(ctx, m) })
	}
	return fn(ctx, c.admin)
}

// errStopScan ends ScanPrefix's walk when fn has seen enough.
var errStopScan = errors.New("scan stopped")

// ScanPrefix lists the keys under prefix with SCAN MATCH, COUNT 1000, on
// every master of a cluster in turn (one at a time, so that fn is never
// called concurrently).
func (c *client) ScanPrefix(ctx context.Context, prefix string, fn func(keys []string) bool) error {
	var mu sync.Mutex
	err := c.forEachMaster(ctx, func(ctx context.Context, n goredis.Cmdable) error {
		mu.Lock()
		defer mu.Unlock()
		var cursor uint64
		for {
			keys, next, err := n.Scan(ctx, cursor, globEscape(prefix)+"*", 1000).Result()
			if err != nil {
				return err
			}
			if len(keys) > 0 && !fn(keys) {
				return errStopScan
			}
			if next == 0 {
				return nil
			}
			cursor = next
		}
	})
	if errors.Is(err, errStopScan) {
		return nil
	}
	return scrub(err, c.cfg)
}

// KeyCount is DBSIZE, summed over a cluster's masters: the keys a SCAN
// visits.
func (c *client) KeyCount(ctx context.Context) (int64, error) {
	var total atomic.Int64
	err := c.forEachMaster(ctx, func(ctx context.Context, n goredis.Cmdable) error {
		k, err := n.DBSize(ctx).Result()
		total.Add(k)
		return err
	})
	return total.Load(), scrub(err, c.cfg)
}

// ConnectionLimit implements driver.ConnectionLimiter: maxclients less the
// connections open now (on the seed node in cluster mode).
func (c *client) ConnectionLimit(ctx context.Context) (int, string, error) {
	got, err := c.admin.ConfigGet(ctx, "maxclients").Result()
	if err != nil {
		return 0, "", err
	}
	maxClients, err := strconv.Atoi(got["maxclients"])
	if err != nil {
		return 0, "", fmt.Errorf("maxclients %q", got["maxclients"])
	}
	text, err := c.admin.Info(ctx, "clients").Result()
	if err != nil {
		return 0, "", err
	}
	open, _ := strconv.Atoi(info(text)["connected_clients"])
	return maxClients - open, fmt.Sprintf("maxclients %d, %d connected", maxClients, open), nil
}

// ConnectionLimit implements driver.ConnectionLimiter on a session.
func (s *session) ConnectionLimit(ctx context.Context) (int, string, error) {
	return s.c.ConnectionLimit(ctx)
}

// ConnectionLimit implements driver.ConnectionLimiter on a session.
func (s *clusterSession) ConnectionLimit(ctx context.Context) (int, string, error) {
	return s.c.ConnectionLimit(ctx)
}
