package main

// run --serve: a live page of the study while it runs (internal/live), and
// its report when it ends.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/live"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// serveOptions are run's --serve flags.
type serveOptions struct {
	addr, token string
	wait        bool
}

// defineServeFlags defines --serve, --serve-token and --serve-wait on f.
func defineServeFlags(f *pflag.FlagSet, o *serveOptions) {
	f.StringVar(&o.addr, "serve", "", "serve a live page of the run at this address while it runs (--serve alone: "+live.DefaultAddr+", a free loopback port; the URL is printed); an address beyond loopback needs --serve-token")
	f.Lookup("serve").NoOptDefVal = live.DefaultAddr
	f.StringVar(&o.token, "serve-token", "", "with --serve: every request to the page must carry this token (?token=… or the X-Fairbench-Token header); required on an address other machines reach")
	f.BoolVar(&o.wait, "serve-wait", false, "with --serve: keep serving the final report after the run ends, until Ctrl-C")
}

// check refuses --serve flags that cannot work, before anything runs.
func (o serveOptions) check() error {
	if o.addr == "" {
		if o.token != "" || o.wait {
			return fmt.Errorf("--serve-token and --serve-wait go with --serve")
		}
		return nil
	}
	loopback, err := live.CheckAddr(o.addr)
	if err != nil {
		return err
	}
	if o.token != "" {
		return live.CheckToken(o.token)
	}
	if !loopback {
		return fmt.Errorf("--serve %s is reachable from other machines: give --serve-token TOKEN too (or serve on 127.0.0.1)", o.addr)
	}
	return nil
}

// liveView is the page of one run command: its board, which the runner
// tells what happens (Options.Watch), and its server.
type liveView struct {
	opt    serveOptions
	board  *live.Board
	server *live.Server
}

// startLive serves the live page of st's cells, when --serve asks for
// it (nil otherwise), and says where.
func startLive(o serveOptions, s *store.Store, st *study.Study, cells []study.Cell) (*liveView, error) {
	if o.addr == "" {
		return nil, nil
	}
	title := st.Name
	if st.Hash == "" && len(cells) == 1 {
		title = cells[0].Workload.Name + " on " + cells[0].Target.Name // an ad-hoc run is named by its URL
	}
	board := live.NewBoard(title, cells, cellEstimates(s, cells))
	srv, err := live.Serve(o.addr, o.token, board)
	if err != nil {
		return nil, err
	}
	note := ""
	if srv.TokenRequired() {
		note = " (add ?token= and your --serve-token)"
	}
	fmt.Fprintf(os.Stderr, "live page: %s%s\n", srv.URL(), note)
	return &liveView{opt: o, board: board, server: srv}, nil
}

// cellEstimates is how long each cell is expected to run, as validate
// estimates it: by its workload's shape, a bounded cell by its last stored
// run (cellTimer); 0 where nothing says.
func cellEstimates(s *store.Store, cells []study.Cell) []time.Duration {
	stored, _ := s.RunsWithoutIntervals(store.Filter{Status: []result.Status{result.StatusOK}, Sources: []string{"fairbench"}})
	shapes := map[string]workload.Shape{}
	shapeKey := func(c study.Cell) string { return c.Workload.Name + "|" + c.Params.Canonical() }
	for _, c := range cells {
		if _, ok := shapes[shapeKey(c)]; ok || c.Workload.Tool != "" {
			continue
		}
		if shape, err := runner.ShapeOf(c); err == nil {
			shapes[shapeKey(c)] = shape
		}
	}
	timer := cellTimer(shapes, shapeKey, lastRuns(stored))
	out := make([]time.Duration, len(cells))
	for i, c := range cells {
		out[i] = timer(c).Time
	}
	return out
}

// finish shows the study's end on the page: its report (the HTML
// 'report --format html' writes) when it stored runs; with --serve-wait it
// serves on until ctx ends (Ctrl-C), then stops serving.
func (v *liveView) finish(ctx context.Context, s *store.Store, st *study.Study, runs []*result.Run, runErr error) {
	if v == nil {
		return
	}
	defer v.server.Close()
	var html []byte
	if ctx.Err() == nil { // Ctrl-C stops at once: no report to render first
		var err error
		if html, err = liveReport(s, st, runs); err != nil {
			fmt.Fprintf(os.Stderr, "live page: no report: %s\n", err)
		}
	}
	v.board.Finish(html, runErr)
	if v.opt.wait && html != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "live page: the report is served at %s until Ctrl-C (--serve-wait)\n", v.server.URL())
		<-ctx.Done()
	}
}

// liveReport is the HTML report of a study's runs: those of its file's
// study, or the runs this command stored (an ad-hoc run); nil without any.
func liveReport(s *store.Store, st *study.Study, runs []*result.Run) ([]byte, error) {
	f := store.Filter{StudyHash: st.Hash}
	if st.Hash == "" {
		for _, r := range runs {
			if r.ID != 0 {
				f.IDs = append(f.IDs, r.ID)
			}
		}
		if len(f.IDs) == 0 {
			return nil, nil
		}
	}
	dir, err := os.MkdirTemp("", "fairbench-live-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "report.html")
	if err := writeReport(s, f, "html", path); err != nil {
		return nil, err
	}
	return boundfile.Read(path, maxLiveReport, "the study's HTML report")
}

// maxLiveReport bounds the report the page serves: reports bound each
// chart's points, so even a study of thousands of runs stays far below.
const maxLiveReport = 256 << 20

// serveAddressArgs wraps run's check of its words: a bare --serve takes no
// value from the next word (it would take the study file's place), so an
// address among the words was meant as --serve's, and is refused saying how
// to write it.
func serveAddressArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if f := cmd.Flags().Lookup("serve"); f != nil && f.Changed && f.Value.String() == live.DefaultAddr {
			for _, a := range args {
				if _, err := live.CheckAddr(a); err == nil {
					if _, statErr := os.Stat(a); statErr != nil {
						return fmt.Errorf("--serve %s: write the address with '=', --serve=%s (a bare --serve serves on %s)", a, a, live.DefaultAddr)
					}
				}
			}
		}
		return check(cmd, args)
	}
}
