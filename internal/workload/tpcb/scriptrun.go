package tpcb

// Running pgbench scripts: each transaction is one script, chosen by
// weight, its commands run in order on the client's session with the
// client's variables; with -r each command's time is kept (statement
// statistics, reported as workload counts and so stored with the run).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// stmtStat is one command's time and failures on one client.
type stmtStat struct {
	ns, count, failures atomic.Int64
}

// statements keeps every client's statement statistics for Counts.
type statements struct {
	mu      sync.Mutex
	clients [][]stmtStat // by client, then by command over all scripts
}

func (s *statements) add(n int) []stmtStat {
	st := make([]stmtStat, n)
	s.mu.Lock()
	s.clients = append(s.clients, st)
	s.mu.Unlock()
	return st
}

// Counts keys of a command: "statement S.C latency_ns", "… executions",
// "… failures", S the script and C the command, both 1-based.
func statementKey(script, cmd int, what string) string {
	return "statement " + strconv.Itoa(script+1) + "." + strconv.Itoa(cmd+1) + " " + what
}

// counts sums the clients' statement statistics.
func (in *instance) counts() map[string]int64 {
	out := map[string]int64{}
	in.stmts.mu.Lock()
	defer in.stmts.mu.Unlock()
	for _, st := range in.stmts.clients {
		k := 0
		for si, sc := range in.scripts.scripts {
			for ci := range sc.cmds {
				out[statementKey(si, ci, "latency_ns")] += st[k].ns.Load()
				out[statementKey(si, ci, "executions")] += st[k].count.Load()
				out[statementKey(si, ci, "failures")] += st[k].failures.Load()
				k++
			}
		}
	}
	return out
}

// scriptWorker is one client running the scripts.
func (in *instance) scriptWorker(ctx context.Context, c driver.SQL, slot workload.ClientSlot) (workload.Op, error) {
	set := in.scripts
	type prepared struct {
		stmt driver.Stmt
		args []any
	}
	var stmts [][]prepared
	ncmds := 0
	for _, sc := range set.scripts {
		ps := make([]prepared, len(sc.cmds))
		for i, cmd := range sc.cmds {
			ncmds++
			if cmd.kind != cmdSQL {
				continue
			}
			q := cmd.sql
			switch {
			case c.Dialect() == "sqlite" && q == "BEGIN":
				q = "BEGIN IMMEDIATE" // see NewWorker
			case c.Dialect() == "mysql" && q == "END":
				q = "COMMIT"
			}
			s, err := c.Prepare(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", sc.name, cmd.line, err)
			}
			ps[i] = prepared{stmt: s, args: make([]any, len(cmd.params))}
		}
		stmts = append(stmts, ps)
	}
	v := &vars{vals: make([]value, len(set.names)), set: make([]bool, len(set.names))}
	for slotNo, val := range map[int]value{slotClientID: intValue(int64(slot.Index)), slotScale: intValue(in.scale),
		slotDefaultSeed: intValue(0), slotRandomSeed: intValue(0)} {
		v.vals[slotNo], v.set[slotNo] = val, true
	}
	var stats []stmtStat
	if in.perStatement {
		stats = in.stmts.add(ncmds)
	}
	offsets := make([]int, len(set.scripts))
	for i := 1; i < len(set.scripts); i++ {
		offsets[i] = offsets[i-1] + len(set.scripts[i-1].cmds)
	}
	e := &env{vars: v, names: set.names}
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		si := set.choose(rng)
		sc := set.scripts[si]
		e.rng = rng
		for ci := range sc.cmds {
			cmd := &sc.cmds[ci]
			var began time.Time
			if stats != nil {
				began = time.Now()
			}
			err := in.runCommand(ctx, e, cmd, stmts[si][ci].stmt, stmts[si][ci].args)
			if stats != nil {
				st := &stats[offsets[si]+ci]
				if err != nil {
					st.failures.Add(1)
				} else {
					st.ns.Add(int64(time.Since(began)))
					st.count.Add(1)
				}
			}
			if err != nil {
				if cmd.kind != cmdSQL { // the server's errors keep their own text and class
					err = fmt.Errorf("%s:%d: %w", sc.name, cmd.line, err)
				}
				return si, sqlwork.Rollback(ctx, c, err)
			}
		}
		return si, nil
	}, nil
}

// runCommand runs one command with the client's variables.
func (in *instance) runCommand(ctx context.Context, e *env, cmd *command, stmt driver.Stmt, args []any) error {
	switch cmd.kind {
	case cmdSet:
		val, err := cmd.expr.eval(e)
		if err != nil {
			return fmt.Errorf("%s: %v", cmd.first, err)
		}
		e.vars.vals[cmd.slot], e.vars.set[cmd.slot] = val, true
		return nil
	case cmdSleep:
		val, err := cmd.amount.eval(e)
		if err != nil {
			return fmt.Errorf("%s: %v", cmd.first, err)
		}
		n, err := val.toInt()
		if err != nil {
			return fmt.Errorf("%s: %v", cmd.first, err)
		}
		if n <= 0 {
			return nil
		}
		return workload.Wait(ctx, time.Duration(min(n, int64(time.Hour/cmd.unit)))*cmd.unit)
	}
	for i, p := range cmd.params {
		val, err := p.eval(e)
		if err != nil {
			return fmt.Errorf("%s: %v", cmd.first, err)
		}
		args[i] = val.arg()
	}
	return stmt.Exec(ctx, args...)
}
