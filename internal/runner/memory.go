package runner

import (
	"fmt"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// clientOverhead is what a client holds here besides its latency buffers and
// its session: its goroutine's stack as it grows under a driver's calls, its
// random streams and its worker's state. Measured with the kv workload on
// bbolt (2 operation types): 1 000 clients peak at 92 MB resident, 10 at
// 69 MB (/usr/bin/time -f %M), 23 KB per client; ClientMemory estimates
// 208 KB (buffers full, and the session's declared memory).
const clientOverhead = 64 << 10

// memoryReserve is kept free beside the clients: the run's merged
// histograms, its per-second series, the results store, the runtime.
const memoryReserve = 256 << 20

// clientMemory is the memory in bytes one client of a cell whose workload
// has ops operation types holds in this process on target rawURL: its
// recorder's latency buffers (hist.RecorderBytes; a client busy enough to
// fold them into histograms of its own is one of few), its session as the
// driver declares it (driver.SessionMemory) and clientOverhead.
func clientMemory(ops int, rawURL string) int64 {
	return hist.RecorderBytes(ops) + driver.SessionMemory(rawURL) + clientOverhead
}

// CheckMemory refuses, before anything connects, a cell whose clients and
// parameters need more memory than this machine has available
// (envinfo.AvailableMemory): per client ClientMemory and what the
// parameters declare (params.Spec.Memory), once what they share. perGenerator
// counts each load generator's share of the clients (generators elsewhere);
// otherwise every client runs here. Tool cells run their own processes and
// are not counted; neither are cells in skip.
func CheckMemory(cells []study.Cell, skip map[string]bool, perGenerator bool) error {
	avail, source, ok := envinfo.AvailableMemory()
	if !ok {
		return nil
	}
	return checkMemory(cells, skip, perGenerator, avail, source)
}

// CheckMemoryWithin is CheckMemory against avail bytes read from source,
// rather than this machine's: what another machine would say.
func CheckMemoryWithin(cells []study.Cell, avail int64, source string) error {
	return checkMemory(cells, nil, false, avail, source)
}

func checkMemory(cells []study.Cell, skip map[string]bool, perGenerator bool, avail int64, source string) error {
	// The same parameters on the same target are checked once, at their
	// most clients: a sweep over clients binds its workload once.
	type group struct {
		cell    study.Cell
		clients int
	}
	var order []string
	groups := map[string]*group{}
	for _, c := range cells {
		if c.Workload.Tool != "" || skip[c.Key()] {
			continue
		}
		n := c.Clients
		if g := c.Workload.Generators; perGenerator && g > 1 {
			n = (n + g - 1) / g
		}
		key := c.Target.URL + "|" + c.Workload.Name + "|" + c.Params.Canonical()
		if g, ok := groups[key]; ok {
			g.clients = max(g.clients, n)
			continue
		}
		order = append(order, key)
		groups[key] = &group{cell: c, clients: n}
	}
	budget := float64(avail - memoryReserve)
	for _, key := range order {
		g := groups[key]
		c := g.cell
		w, err := workload.Get(c.Workload.Kind)
		if err != nil {
			continue // Preflight names it
		}
		// What the parameters declare is checked before the workload binds
		// them: binding may allocate what they size (kv's value).
		shared, perClient, by := params.Need(w.Params(), c.Params, g.clients)
		ops, opsText := 1, "at least 1 operation type"
		if shared+perClient*float64(g.clients) <= budget {
			in, err := w.New(c.Params)
			if err != nil {
				continue // Preflight names it
			}
			ops = len(in.Ops())
			opsText = fmt.Sprintf("%d operation types", ops)
		}
		histograms := float64(hist.RecorderBytes(ops))
		client := float64(clientMemory(ops, c.Target.URL))
		per := client + perClient
		need := shared + per*float64(g.clients)
		if need <= budget {
			continue
		}
		detail := fmt.Sprintf("%s per client: %s of latency buffers for %s, %s of session and client state",
			size(per), size(histograms), opsText, size(client-histograms))
		if by != "" {
			detail += fmt.Sprintf(", %s for %s %s", size(perClient), by, params.Format(c.Params[by]))
		}
		most := int64(0)
		if left := budget - shared; left > 0 {
			most = int64(left / per)
		}
		fix := fmt.Sprintf("lower clients to at most %d", most)
		switch {
		case most < 1 && by != "":
			fix = "lower " + by
		case most < 1:
			fix = "this machine cannot hold one client of it"
		}
		clients := fmt.Sprintf("%d clients need", g.clients)
		if g.clients == 1 {
			clients = "1 client needs"
		}
		return fmt.Errorf("target %q, workload %q: %s about %s of memory on this load generator (%s), more than the %s available (%s, less %s kept for the run): %s",
			c.Target.Name, c.Workload.Name, clients, size(need), detail, size(float64(avail)), source, size(memoryReserve), fix)
	}
	return nil
}

// size writes bytes in the largest unit that keeps a digit before the point.
func size(b float64) string {
	for _, u := range []struct {
		unit string
		n    float64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if b >= u.n {
			return fmt.Sprintf("%.1f %s", b/u.n, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}
