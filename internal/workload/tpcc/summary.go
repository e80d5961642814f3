package tpcc

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/result"
)

// hammerdbNames are HammerDB's names of the transactions in its time profile.
var hammerdbNames = map[string]string{
	tpccparams.NewOrder: "NEWORD", tpccparams.Payment: "PAYMENT", tpccparams.OrderStatus: "OSTAT",
	tpccparams.Delivery: "DELIVERY", tpccparams.StockLevel: "SLEV",
}

// Figures are a tpcc run's per-minute figures.
type Figures struct {
	NOPM    float64 // New-Orders per minute from the districts (0 when unknown)
	TPM     float64 // server commits + rollbacks per minute; fairbench's own count where the engine keeps none
	TPMC    float64 // committed New-Orders per minute as fairbench counted them
	ServerT bool    // TPM comes from the server's counters
	HasNOPM bool
}

// FiguresOf computes a run's figures.
func FiguresOf(r *result.Run) Figures {
	var f Figures
	mins := r.Duration.Minutes()
	if mins <= 0 {
		return f
	}
	if v, ok := r.Summary.Extra[tpccparams.NewOrders]; ok {
		f.NOPM, f.HasNOPM = v/mins, true
	}
	var all, newOrders float64
	for _, op := range r.Ops {
		all += float64(op.Count)
		if op.Name == tpccparams.NewOrder {
			newOrders = float64(op.Count)
		}
	}
	f.TPMC = (newOrders - r.Summary.Extra[rolledBack]) / mins
	if v, ok := r.Summary.Extra[tpccparams.ServerTransactions]; ok {
		f.TPM, f.ServerT = v/mins, true
	} else {
		f.TPM = all / mins
	}
	return f
}

// engineName is HammerDB's word for the engine in its TEST RESULT line.
func engineName(r *result.Run) string {
	switch r.Env.Database.Engine {
	case "postgresql":
		return "PostgreSQL"
	case "mysql":
		return "MySQL"
	case "mariadb":
		return "MariaDB"
	case "sqlite":
		return "SQLite"
	}
	return "server"
}

// peerSummary prints a run as HammerDB ends a timed run — its TEST RESULT
// line, then its time profile's percentiles per transaction — with
// fairbench's tpmC beside NOPM, from the run's own histograms.
func peerSummary(w io.Writer, r *result.Run) {
	facts, _ := r.Env.Extra["workload"].(map[string]any)
	fmt.Fprintf(w, "TPC-C: %v warehouse(s), %d virtual user(s), %v; ramp-up %s, measured %.0f s\n",
		facts["warehouses"], r.Clients, facts["implementation"], r.Warmup, r.Duration.Seconds())
	f := FiguresOf(r)
	tpm := fmt.Sprintf("%.0f %s TPM", f.TPM, engineName(r))
	if !f.ServerT {
		tpm = fmt.Sprintf("%.0f TPM (fairbench's count: %s keeps no server counter)", f.TPM, engineName(r))
	}
	if f.HasNOPM {
		fmt.Fprintf(w, "TEST RESULT : System achieved %.0f NOPM from %s\n", f.NOPM, tpm)
	} else {
		fmt.Fprintf(w, "TEST RESULT : NOPM unknown (the districts could not be read) from %s\n", tpm)
	}
	agree := ""
	if f.HasNOPM && f.NOPM > 0 {
		agree = fmt.Sprintf(" (%+.2f %% of NOPM)", 100*(f.TPMC-f.NOPM)/f.NOPM)
	}
	eff := ""
	// A stored run's parameters come back from JSON as float64.
	if wh, err := strconv.ParseFloat(fmt.Sprint(r.Params[tpccparams.Warehouses]), 64); err == nil && wh >= 1 {
		eff = fmt.Sprintf(", efficiency %.1f%% (go-tpc's: tpmC ÷ (%.2f × %.0f warehouses))", 100*f.TPMC/(tpccparams.TpmCPerWarehouse*wh), tpccparams.TpmCPerWarehouse, wh)
	}
	fmt.Fprintf(w, "tpmC (committed New-Orders fairbench counted): %.0f%s%s; New-Orders rolled back on purpose: %.0f\n",
		f.TPMC, agree, eff, r.Summary.Extra[rolledBack])
	fmt.Fprintf(w, "%-9s %9s %7s %9s %9s %9s %9s %9s %7s\n", "TXN", "CALLS", "SHARE", "AVG ms", "P50 ms", "P95 ms", "P99 ms", "MAX ms", "ERRORS")
	var total int64
	for _, op := range r.Ops {
		total += op.Count
	}
	for _, op := range r.Ops {
		var errs int64
		for _, n := range op.Errors {
			errs += n
		}
		share := 0.0
		if total > 0 {
			share = 100 * float64(op.Count) / float64(total)
		}
		row := fmt.Sprintf("%-9s %9d %6.2f%%", hammerdbNames[op.Name], op.Count, share)
		if h, err := hist.Decode(op.Histogram); err == nil && h.TotalCount() > 0 {
			row += fmt.Sprintf(" %9.3f %9.3f %9.3f %9.3f %9.3f", h.Mean()/1000, float64(h.ValueAtQuantile(50))/1000,
				float64(h.ValueAtQuantile(95))/1000, float64(h.ValueAtQuantile(99))/1000, float64(h.Max())/1000)
		} else {
			row += strings.Repeat(fmt.Sprintf(" %9s", "-"), 5)
		}
		fmt.Fprintf(w, "%s %7d\n", row, errs)
	}
	if r.Summary.Retried > 0 {
		fmt.Fprintf(w, "transactions retried: %d (%d retries)\n", r.Summary.Retried, r.Summary.Retries)
	}
}

// sections gives reports the TPC-C table the seed articles publish: per
// cell, NOPM, TPM and tpmC (medians over repetitions), and each
// transaction's p95 and p99 in ms.
func sections(runs []*result.Run, _ string) []kinds.Section {
	type cell struct {
		label string
		runs  []*result.Run
	}
	var cells []*cell
	byKey := map[string]*cell{}
	for _, r := range runs {
		k := r.Target + "\x00" + params.Values(r.Params).Canonical() + "\x00" + fmt.Sprint(r.Clients)
		c := byKey[k]
		if c == nil {
			c = &cell{label: fmt.Sprintf("%s, %d VU", r.Target, r.Clients)}
			byKey[k] = c
			cells = append(cells, c)
		}
		if r.Status == result.StatusOK {
			c.runs = append(c.runs, r)
		}
	}
	cols := []string{"cell", "runs", "NOPM", "TPM", "tpmC"}
	right := []bool{false, true, true, true, true}
	for _, op := range tpccparams.Ops {
		cols = append(cols, hammerdbNames[op]+" p95 ms", hammerdbNames[op]+" p99 ms")
		right = append(right, true, true)
	}
	sec := kinds.Section{Title: "TPC-C transactions", Columns: cols, Right: right,
		Caption: "Medians over the completed repetitions; NOPM from the districts' next order ids, TPM from the server's commits and rollbacks, tpmC from fairbench's count of committed New-Orders."}
	for _, c := range cells {
		row := []string{c.label, fmt.Sprint(len(c.runs))}
		if len(c.runs) == 0 {
			for range cols[2:] {
				row = append(row, "-")
			}
			sec.Rows = append(sec.Rows, row)
			continue
		}
		var nopm, tpm, tpmc []float64
		p := map[string][2][]float64{}
		for _, r := range c.runs {
			f := FiguresOf(r)
			nopm, tpm, tpmc = append(nopm, f.NOPM), append(tpm, f.TPM), append(tpmc, f.TPMC)
			for _, op := range r.Ops {
				if h, err := hist.Decode(op.Histogram); err == nil && h.TotalCount() > 0 {
					q := p[op.Name]
					q[0] = append(q[0], float64(h.ValueAtQuantile(95))/1000)
					q[1] = append(q[1], float64(h.ValueAtQuantile(99))/1000)
					p[op.Name] = q
				}
			}
		}
		row = append(row, fmt.Sprintf("%.0f", hist.Median(nopm)), fmt.Sprintf("%.0f", hist.Median(tpm)), fmt.Sprintf("%.0f", hist.Median(tpmc)))
		for _, op := range tpccparams.Ops {
			q := p[op]
			if len(q[0]) == 0 {
				row = append(row, "-", "-")
				continue
			}
			row = append(row, fmt.Sprintf("%.2f", hist.Median(q[0])), fmt.Sprintf("%.2f", hist.Median(q[1])))
		}
		sec.Rows = append(sec.Rows, row)
	}
	return []kinds.Section{sec}
}
