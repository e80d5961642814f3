// Package nodeexp samples a server's own view of its load from a Prometheus
// node_exporter (/metrics): CPU busy share, the busiest disk's utilisation and
// network bytes per second. The runner scrapes it next to each tick, so
// throughput can be read against what the server was doing; fairbench never
// needs node_exporter, it only uses one when a target names it.
package nodeexp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/fairbench/fairbench/internal/result"
)

// counters is one scrape: cumulative counters as node_exporter reports them.
type counters struct {
	At          time.Time
	CPUBusy     float64            // seconds in user + system (+ nice, irq, softirq, steal), all CPUs
	CPUTotal    float64            // seconds in every mode, all CPUs
	DiskIOTime  map[string]float64 // node_disk_io_time_seconds_total per device
	NetRx       float64            // bytes received, all devices but loopback
	NetTx       float64            // bytes sent
	MemoryBytes float64            // node_memory_MemTotal_bytes
}

// busyModes count as CPU use; idle and iowait do not.
var busyModes = map[string]bool{"user": true, "system": true, "nice": true, "irq": true, "softirq": true, "steal": true}

// parse reads node_exporter's text exposition format.
func parse(body string) (*counters, error) {
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("node_exporter metrics: %w", err)
	}
	c := &counters{DiskIOTime: map[string]float64{}}
	for _, m := range fams["node_cpu_seconds_total"].GetMetric() {
		v := value(m)
		c.CPUTotal += v
		if busyModes[label(m, "mode")] {
			c.CPUBusy += v
		}
	}
	for _, m := range fams["node_disk_io_time_seconds_total"].GetMetric() {
		dev := label(m, "device")
		// Partitions, loop and ram devices would double-count or say nothing.
		if strings.HasPrefix(dev, "loop") || strings.HasPrefix(dev, "ram") {
			continue
		}
		c.DiskIOTime[dev] = value(m)
	}
	for name, dst := range map[string]*float64{"node_network_receive_bytes_total": &c.NetRx, "node_network_transmit_bytes_total": &c.NetTx} {
		for _, m := range fams[name].GetMetric() {
			if label(m, "device") == "lo" {
				continue
			}
			*dst += value(m)
		}
	}
	for _, m := range fams["node_memory_MemTotal_bytes"].GetMetric() {
		c.MemoryBytes = value(m)
	}
	if c.CPUTotal == 0 {
		return nil, fmt.Errorf("node_exporter metrics: no node_cpu_seconds_total (is this a node_exporter?)")
	}
	return c, nil
}

func value(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// between turns two scrapes into one sample: CPU busy share of all CPUs in %,
// the busiest device's utilisation in %, network bytes per second.
func between(a, b *counters) *result.ServerSample {
	dt := b.At.Sub(a.At).Seconds()
	if dt <= 0 {
		return nil
	}
	s := &result.ServerSample{}
	if d := b.CPUTotal - a.CPUTotal; d > 0 {
		s.CPU = 100 * (b.CPUBusy - a.CPUBusy) / d
	}
	for dev, t := range b.DiskIOTime {
		if t0, ok := a.DiskIOTime[dev]; ok {
			s.DiskUtil = max(s.DiskUtil, min(100, 100*(t-t0)/dt))
		}
	}
	s.NetRx = max(0, (b.NetRx-a.NetRx)/dt)
	s.NetTx = max(0, (b.NetTx-a.NetTx)/dt)
	return s
}

// Sampler scrapes one node_exporter in the background, once per interval, so
// a slow exporter never delays the runner's tick; Take returns the sample
// between the previous Take's scrape and the latest one.
type Sampler struct {
	url    string
	client *http.Client

	mu     sync.Mutex
	latest *counters
	taken  *counters
	err    error
}

// New returns a sampler for a node_exporter metrics URL.
func New(rawURL string) (*Sampler, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("node_exporter %q: want an http(s) URL such as http://host:9100/metrics", Redacted(rawURL))
	}
	return &Sampler{url: rawURL, client: &http.Client{Timeout: 2 * time.Second}}, nil
}

// Redacted drops user info from a node_exporter URL before it is stored or shown.
func Redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	return u.String()
}

// scrape fetches and parses the metrics once.
func (s *Sampler) scrape(ctx context.Context) (*counters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node_exporter %s: %w", Redacted(s.url), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("node_exporter %s: HTTP %s", Redacted(s.url), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("node_exporter %s: %w", Redacted(s.url), err)
	}
	c, err := parse(string(body))
	if err != nil {
		return nil, err
	}
	c.At = time.Now()
	return c, nil
}

// Start scrapes once at once (so Take has a starting point) and then every
// interval until ctx ends.
func (s *Sampler) Start(ctx context.Context, every time.Duration) error {
	c, err := s.scrape(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.latest, s.taken = c, c
	s.mu.Unlock()
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c, err := s.scrape(ctx)
				s.mu.Lock()
				if err == nil {
					s.latest = c
				} else {
					s.err = err
				}
				s.mu.Unlock()
			}
		}
	}()
	return nil
}

// Take returns the sample since the previous Take, nil when no new scrape
// arrived in between.
func (s *Sampler) Take() *result.ServerSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == nil || s.taken == nil || s.latest == s.taken {
		return nil
	}
	smp := between(s.taken, s.latest)
	s.taken = s.latest
	return smp
}

// Memory returns the server's memory from the latest scrape, 0 if unknown.
func (s *Sampler) Memory() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == nil {
		return 0
	}
	return s.latest.MemoryBytes
}
