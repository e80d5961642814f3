package mongodb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// The server view of MongoDB and stores of its protocol is one serverStatus
// per sample, on a client of the sampler's own (one connection, not the
// sessions' pool), without the sections it does not read: opcounters,
// opLatencies, connections and the WiredTiger cache. A store that keeps no
// opcounters (FerretDB v1) is sampled for what it has, its per-command counts
// (metrics.commands), and Unavailable names what it lacks. MongoDB has no
// wait states: Waits stays empty (globalLock's queues are gauges).

var _ driver.ServerViewer = (*client)(nil)

const (
	viewPrefix = "serverStatus."
	// maxStatusAnswer bounds the answer: a serverStatus of a busy MongoDB
	// is some 100 KiB; the wire protocol would let 48 MB through.
	maxStatusAnswer = 4 << 20
)

// serverStatusCommand leaves out the sections a sample does not read
// (serverStatus ignores a section it does not have).
var serverStatusCommand = bson.D{
	{Key: "serverStatus", Value: 1}, {Key: "repl", Value: 0}, {Key: "locks", Value: 0}, {Key: "tcmalloc", Value: 0},
	{Key: "transactions", Value: 0}, {Key: "asserts", Value: 0}, {Key: "network", Value: 0},
	{Key: "flowControl", Value: 0}, {Key: "logicalSessionRecordCache", Value: 0}, {Key: "storageEngine", Value: 0},
	{Key: "catalogStats", Value: 0},
}

// statusCounters and statusGauges are the paths a sample keeps, under
// viewPrefix with dots ("serverStatus.opcounters.insert").
var (
	statusCounters = [][]string{
		{"opcounters", "insert"}, {"opcounters", "query"}, {"opcounters", "update"}, {"opcounters", "delete"},
		{"opcounters", "getmore"}, {"opcounters", "command"},
		{"opLatencies", "reads", "latency"}, {"opLatencies", "reads", "ops"},
		{"opLatencies", "writes", "latency"}, {"opLatencies", "writes", "ops"},
		{"opLatencies", "commands", "latency"}, {"opLatencies", "commands", "ops"},
		{"connections", "totalCreated"},
		{"wiredTiger", "cache", "bytes read into cache"}, {"wiredTiger", "cache", "bytes written from cache"},
		{"wiredTiger", "cache", "pages read into cache"}, {"wiredTiger", "cache", "pages written from cache"},
		{"wiredTiger", "cache", "pages evicted by application threads"},
	}
	statusGauges = [][]string{
		{"connections", "current"}, {"connections", "active"},
		{"globalLock", "currentQueue", "readers"}, {"globalLock", "currentQueue", "writers"},
		{"wiredTiger", "cache", "bytes currently in the cache"}, {"wiredTiger", "cache", "maximum bytes configured"},
		{"wiredTiger", "cache", "tracked dirty bytes in the cache"},
	}
	statusUnits = result.EngineMetricUnit{
		"serverStatus.opLatencies.reads.latency": "µs", "serverStatus.opLatencies.writes.latency": "µs",
		"serverStatus.opLatencies.commands.latency":                      "µs",
		"serverStatus.wiredTiger.cache.bytes read into cache":            "bytes",
		"serverStatus.wiredTiger.cache.bytes written from cache":         "bytes",
		"serverStatus.wiredTiger.cache.bytes currently in the cache":     "bytes",
		"serverStatus.wiredTiger.cache.maximum bytes configured":         "bytes",
		"serverStatus.wiredTiger.cache.tracked dirty bytes in the cache": "bytes",
	}
)

// statusSampler samples serverStatus.
type statusSampler struct {
	mc       *mongo.Client
	cfg      config
	unavail  []string
	disabled bool // serverStatus is refused: samples are empty
	// commands: the store keeps no opcounters, so its per-command counts
	// are sampled instead.
	commands bool
}

// ServerView implements driver.ServerViewer: a client of its own, checked
// with a first serverStatus that decides what the samples read.
func (c *client) ServerView(ctx context.Context) (driver.ServerSampler, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	opts := *c.cfg.opts
	opts.SetMaxPoolSize(1).SetMinPoolSize(0).SetAppName("fairbench-serverview")
	mc, err := mongo.Connect(&opts)
	if err != nil {
		return nil, fmt.Errorf("MongoDB URL %s: %w", c.cfg.redacted, c.cfg.secrets.ScrubErr(err))
	}
	s := &statusSampler{mc: mc, cfg: c.cfg}
	// The driver's server selection waits serverSelectionTimeoutMS whatever
	// ctx says; the attempt ends with ctx all the same.
	att, cancel := driver.StartConnecting(ctx, *c.cfg.opts.ServerSelectionTimeout+time.Second, "serverSelectionTimeoutMS")
	defer cancel()
	if err := att.Await(s.probe, func() { _ = mc.Disconnect(context.Background()) }); err != nil {
		if e := att.Explain(err, "MongoDB server of "+c.cfg.redacted); e != nil {
			return nil, e
		}
		return nil, err
	}
	return s, nil
}

// probe runs the first serverStatus: refused, it disables the view; else
// what the answer lacks is unavailable.
func (s *statusSampler) probe(ctx context.Context) error {
	doc, err := s.status(ctx)
	var se mongo.ServerError
	if errors.As(err, &se) && (se.HasErrorCode(13) || se.HasErrorCode(59)) { // Unauthorized, CommandNotFound
		s.disabled = true
		s.unavail = append(s.unavail, s.refused(se))
		return nil
	}
	if err != nil {
		return err
	}
	s.unavail = append(s.unavail, lacking(doc)...)
	_, err = doc.LookupErr("opcounters")
	s.commands = err != nil
	return nil
}

// lacking names the sections a serverStatus answer does not have.
func lacking(doc bsoncore.Document) []string {
	var out []string
	store := "the store"
	if v, err := doc.LookupErr("ferretdbVersion"); err == nil {
		store = "FerretDB " + v.StringValue()
	}
	if _, err := doc.LookupErr("opcounters"); err != nil {
		out = append(out, fmt.Sprintf("serverStatus.opcounters (insert, query, update, delete, getmore, command): %s does not keep them; its per-command counts are sampled instead (serverStatus.metrics.commands.<name>.total), where one insert of many documents is one", store))
	}
	if _, err := doc.LookupErr("opLatencies"); err != nil {
		out = append(out, fmt.Sprintf("serverStatus.opLatencies (the server's time per read, write and command): %s does not keep them", store))
	}
	if _, err := doc.LookupErr("connections"); err != nil {
		out = append(out, fmt.Sprintf("serverStatus.connections (clients connected): %s does not report them", store))
	}
	if _, err := doc.LookupErr("wiredTiger"); err != nil {
		out = append(out, fmt.Sprintf("serverStatus.wiredTiger (cache bytes, pages read and written): %s has no WiredTiger storage engine", store))
	}
	return out
}

// refused is the Unavailable line for a serverStatus the user may not run.
func (s *statusSampler) refused(se mongo.ServerError) string {
	user := "the URL's user"
	if s.cfg.opts.Auth != nil && s.cfg.opts.Auth.Username != "" {
		user = fmt.Sprintf("user %q", s.cfg.opts.Auth.Username)
	}
	return fmt.Sprintf("serverStatus (the whole server view): %s may not run it (%s): grant it the clusterMonitor role (the serverStatus action on the cluster)",
		user, s.cfg.secrets.Scrub(firstLine(se.Error())))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// status runs serverStatus and bounds its answer.
func (s *statusSampler) status(ctx context.Context) (bsoncore.Document, error) {
	raw, err := s.mc.Database("admin").RunCommand(ctx, serverStatusCommand).Raw()
	if err != nil {
		return nil, s.cfg.secrets.ScrubErr(fmt.Errorf("serverStatus on %s: %w", s.cfg.redacted, err))
	}
	if len(raw) > maxStatusAnswer {
		return nil, fmt.Errorf("serverStatus on %s: an answer of %d bytes, more than the %d it can be", s.cfg.redacted, len(raw), maxStatusAnswer)
	}
	return bsoncore.Document(raw), nil
}

// Sample implements driver.ServerSampler.
func (s *statusSampler) Sample(ctx context.Context) (result.EngineSample, error) {
	out := result.EngineSample{At: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	if s.disabled {
		return out, nil
	}
	doc, err := s.status(ctx)
	if err != nil {
		return result.EngineSample{}, err
	}
	addStatus(&out, doc, s.commands)
	return out, nil
}

// addStatus adds the kept paths of a serverStatus answer to a sample, and
// with commands its per-command counts.
func addStatus(out *result.EngineSample, doc bsoncore.Document, commands bool) {
	keep := func(m map[string]float64, paths [][]string) {
		for _, p := range paths {
			if v, err := doc.LookupErr(p...); err == nil {
				if n, ok := asInt64(v); ok {
					m[viewPrefix+strings.Join(p, ".")] = float64(n)
				}
			}
		}
	}
	keep(out.Counters, statusCounters)
	keep(out.Gauges, statusGauges)
	if !commands {
		return
	}
	v, err := doc.LookupErr("metrics", "commands")
	if err != nil {
		return
	}
	cmds, _ := v.DocumentOK()
	elems, _ := cmds.Elements()
	for _, e := range elems {
		c, ok := e.Value().DocumentOK()
		if !ok {
			continue
		}
		for _, f := range []string{"total", "failed"} {
			if x, err := c.LookupErr(f); err == nil {
				if n, ok := asInt64(x); ok {
					out.Counters[viewPrefix+"metrics.commands."+e.Key()+"."+f] = float64(n)
				}
			}
		}
	}
}

// Unavailable implements driver.ServerSampler.
func (s *statusSampler) Unavailable() []string { return s.unavail }

// Units implements driver.ServerSampler.
func (s *statusSampler) Units() result.EngineMetricUnit { return maps.Clone(statusUnits) }

// Close implements driver.ServerSampler.
func (s *statusSampler) Close(ctx context.Context) error {
	return s.cfg.secrets.ScrubErr(s.mc.Disconnect(ctx))
}
