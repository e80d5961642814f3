package redis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// The server view of Redis and Valkey is INFO, one request per node and
// sample, on connections of the sampler's own (fairbench's RESP path, never a
// worker's): per-command calls and time (commandstats), per-command latency
// percentiles where the server keeps them (latencystats, Redis 7 and Valkey),
// CPU, hits, misses, evictions, clients and memory. A cluster is sampled on
// every master the slot map names: counters and additive gauges are summed
// over them, ratios and percentiles take the largest master's. Redis has no
// wait states: Waits stays empty (blocked_clients, the clients in BLPOP and
// the like, is a gauge).

var _ driver.ServerViewer = (*client)(nil)

// infoSections are what a Redis 7 or Valkey sample asks for; an older
// server takes one section only, and is asked for "all" (which includes
// these).
var infoSections = []string{"clients", "memory", "stats", "cpu", "commandstats", "latencystats"}

// infoCounters are INFO's cumulative fields a sample keeps; infoGauges its
// point-in-time ones.
var (
	infoCounters = []string{
		"total_commands_processed", "total_connections_received", "rejected_connections", "total_error_replies",
		"keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys", "total_net_input_bytes",
		"total_net_output_bytes", "used_cpu_sys", "used_cpu_user", "io_threaded_reads_processed",
		"io_threaded_writes_processed",
	}
	infoGauges = []string{"connected_clients", "blocked_clients", "used_memory", "used_memory_rss", "mem_fragmentation_ratio"}
	// infoLargest are the gauges a cluster's sample takes from its largest
	// master instead of summing them.
	infoLargest = map[string]bool{"info.mem_fragmentation_ratio": true}
)

// maxInfoReply bounds one INFO answer: a few KiB with a line per command
// used (a few hundred at most); anything near this is not INFO.
const maxInfoReply = 1 << 20

const (
	commandstatsPrefix = "cmdstat_"
	latencyPrefix      = "latency_percentiles_usec_"
)

// infoSampler samples INFO on each of its nodes.
type infoSampler struct {
	cfg      config
	addrs    []string
	nodes    []*node // nil until dialled, and after a failure
	args     [][]byte
	unavail  []string
	disabled bool // INFO is refused: samples are empty, unavail says why
	// units names the unit of every timed name a sample has had
	// (commandstats and latencystats names depend on the commands run).
	units result.EngineMetricUnit
}

// ServerView implements driver.ServerViewer: it connects to the server (to
// every master of a cluster), asks INFO once to learn what the server
// answers, and returns the sampler. An unreachable node is an error; an INFO
// that the ACL refuses or that is renamed away is not (Unavailable says it).
func (c *client) ServerView(ctx context.Context) (driver.ServerSampler, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	s := &infoSampler{cfg: c.cfg, addrs: []string{c.cfg.Addr}, units: result.EngineMetricUnit{
		"info.used_cpu_sys": "s", "info.used_cpu_user": "s",
		"info.total_net_input_bytes": "bytes", "info.total_net_output_bytes": "bytes",
		"info.used_memory": "bytes", "info.used_memory_rss": "bytes",
	}}
	if c.cfg.Cluster {
		s.addrs = c.masters()
	}
	s.nodes = make([]*node, len(s.addrs))
	for _, sec := range infoSections {
		s.args = append(s.args, []byte(sec))
	}
	if err := s.probe(ctx); err != nil {
		_ = s.Close(ctx)
		return nil, scrub(err, c.cfg)
	}
	return s, nil
}

// masters lists the distinct masters of the slot map, in address order.
func (c *client) masters() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range c.slots.Load() {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// probe asks the first node INFO: a refusal or an old server's syntax error
// decides what every sample asks, the answer's sections what is unavailable.
func (s *infoSampler) probe(ctx context.Context) error {
	for i := range s.addrs { // every node must answer now, not at the first sample
		if _, err := s.node(ctx, i); err != nil {
			return err
		}
	}
	text, err := s.info(ctx, 0)
	var se *serverError
	if errors.As(err, &se) && strings.Contains(se.Msg, "syntax error") {
		// Before Redis 7 INFO takes one section.
		s.args = [][]byte{[]byte("all")}
		text, err = s.info(ctx, 0)
	}
	if errors.As(err, &se) {
		s.disabled = true
		s.unavail = append(s.unavail, s.refused(se))
		return nil
	}
	if err != nil {
		return err
	}
	fields := info(text)
	switch {
	case !strings.Contains(text, "# Latencystats"):
		s.unavail = append(s.unavail, fmt.Sprintf("latencystats (per-command latency percentiles): redis_version %s has none (Redis 7 and Valkey 7.2 added them)", fields["redis_version"]))
	case s.latencyTrackingOff(ctx):
		s.unavail = append(s.unavail, "latencystats (per-command latency percentiles): latency-tracking is off: CONFIG SET latency-tracking yes")
	}
	return nil
}

// refused is the Unavailable line for an INFO the server would not run.
func (s *infoSampler) refused(se *serverError) string {
	user := s.cfg.User
	if user == "" {
		user = "default"
	}
	switch se.prefix() {
	case "NOPERM":
		return fmt.Sprintf("INFO (the whole server view): ACL user %q may not run it: ACL SETUSER %s +info", user, user)
	case "ERR":
		if strings.Contains(strings.ToLower(se.Msg), "unknown command") {
			return "INFO (the whole server view): the server does not know the command (renamed or disabled with rename-command in its configuration): give the server view its name back"
		}
	}
	return fmt.Sprintf("INFO (the whole server view): the server refused it: %s", se.Msg)
}

// latencyTrackingOff says whether CONFIG GET says latency-tracking is off (a
// refused CONFIG says nothing).
func (s *infoSampler) latencyTrackingOff(ctx context.Context) bool {
	v, err := s.ask(ctx, 0, driver.KVCommand{Name: "CONFIG", Key: []byte("GET"), Value: []byte("latency-tracking")})
	if err != nil || len(v.Elements) < 2 {
		return false
	}
	return strings.EqualFold(string(v.Elements[1]), "no")
}

// node returns node i's connection, dialling it when there is none.
func (s *infoSampler) node(ctx context.Context, i int) (*node, error) {
	if n := s.nodes[i]; n != nil && n.broken == nil {
		return n, nil
	}
	if n := s.nodes[i]; n != nil {
		_ = n.close()
		s.nodes[i] = nil
	}
	n, err := dialNode(ctx, s.cfg, s.addrs[i], false)
	if err != nil {
		return nil, err
	}
	n.rd.limit = maxInfoReply
	s.nodes[i] = n
	return n, nil
}

// ask sends one command to node i and reads its reply within ctx (or the
// connect timeout when ctx has no deadline). A server's error reply comes
// back as a *serverError; anything else breaks the connection, which the
// next call dials again.
func (s *infoSampler) ask(ctx context.Context, i int, cmd driver.KVCommand) (driver.KVReply, error) {
	n, err := s.node(ctx, i)
	if err != nil {
		return driver.KVReply{}, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(s.cfg.Timeout)
	}
	_ = n.nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, n.interrupt)
	replies := make([]driver.KVReply, 1)
	err = n.pipeline([]driver.KVCommand{cmd}, replies)
	stop()
	if err != nil {
		var ne net.Error
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		} else if errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("no reply by the deadline: %w", context.DeadlineExceeded)
		}
		return driver.KVReply{}, fmt.Errorf("%s on %s: %w", cmd.Name, s.addrs[i], err)
	}
	_ = n.nc.SetDeadline(time.Time{})
	return replies[0], replies[0].Err
}

// info asks node i INFO with the sampler's sections.
func (s *infoSampler) info(ctx context.Context, i int) (string, error) {
	r, err := s.ask(ctx, i, driver.KVCommand{Name: "INFO", Args: s.args})
	if err != nil {
		return "", err
	}
	return string(r.Value), nil
}

// Sample implements driver.ServerSampler: INFO on every node, in turn.
func (s *infoSampler) Sample(ctx context.Context) (result.EngineSample, error) {
	out := result.EngineSample{At: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	if s.disabled {
		return out, nil
	}
	for i := range s.addrs {
		text, err := s.info(ctx, i)
		if err != nil {
			return result.EngineSample{}, scrub(err, s.cfg)
		}
		addInfo(&out, info(text))
	}
	for k := range out.Counters {
		if strings.HasSuffix(k, ".usec") {
			s.units[k] = "µs"
		}
	}
	for k := range out.Gauges {
		if strings.HasPrefix(k, "latencystats.") {
			s.units[k] = "µs"
		}
	}
	return out, nil
}

// addInfo adds one node's INFO fields to a sample: counters and gauges
// summed, percentiles and ratios the largest.
func addInfo(out *result.EngineSample, fields map[string]string) {
	for _, k := range infoCounters {
		if v, err := strconv.ParseFloat(fields[k], 64); err == nil {
			out.Counters["info."+k] += v
		}
	}
	for _, k := range infoGauges {
		if v, err := strconv.ParseFloat(fields[k], 64); err == nil {
			name := "info." + k
			if infoLargest[name] {
				out.Gauges[name] = max(out.Gauges[name], v)
			} else {
				out.Gauges[name] += v
			}
		}
	}
	for k, v := range fields {
		switch {
		case strings.HasPrefix(k, commandstatsPrefix):
			// cmdstat_get:calls=2,usec=15,usec_per_call=7.50,rejected_calls=0,failed_calls=0
			for name, x := range subfields(v) {
				if name != "usec_per_call" { // a ratio of the two counters
					out.Counters["commandstats."+k+"."+name] += x
				}
			}
		case strings.HasPrefix(k, latencyPrefix):
			// latency_percentiles_usec_get:p50=1.003,p99=3.007,p99.9=5.023
			for name, x := range subfields(v) {
				g := "latencystats." + k + "." + name
				out.Gauges[g] = max(out.Gauges[g], x)
			}
		}
	}
}

// subfields parses "a=1,b=2.5" (unparsable values are left out).
func subfields(v string) map[string]float64 {
	out := map[string]float64{}
	for _, kv := range strings.Split(v, ",") {
		if k, x, ok := strings.Cut(kv, "="); ok {
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				out[k] = f
			}
		}
	}
	return out
}

// Unavailable implements driver.ServerSampler.
func (s *infoSampler) Unavailable() []string { return s.unavail }

// Units implements driver.ServerSampler: CPU seconds, bytes, and the
// microseconds of every commandstats time and latencystats percentile the
// samples so far have had; every other name is a count.
func (s *infoSampler) Units() result.EngineMetricUnit {
	return maps.Clone(s.units)
}

// Close implements driver.ServerSampler.
func (s *infoSampler) Close(context.Context) error {
	for i, n := range s.nodes {
		if n != nil {
			_ = n.close()
			s.nodes[i] = nil
		}
	}
	return nil
}
