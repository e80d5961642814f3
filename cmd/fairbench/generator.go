package main

// Several load generators per cell, from the command line: the coordinator
// is 'fairbench run' (it starts the generators as local processes unless
// --remote-generators says they start elsewhere, as Kubernetes pods do);
// a generator is 'fairbench generator STUDY' or, for a local process the
// coordinator started, 'fairbench run … --as-generator I --session ID',
// which re-reads the coordinator's own flags and so works for ad hoc runs.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
)

func init() { addCommand(newGenerator) }

func newGenerator() *cobra.Command {
	var (
		results string
		index   int
		wait    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "generator study.toml",
		Short: "Be one load generator of a coordinator running the same study ('fairbench run --generators N --remote-generators')",
		Long: `Join the coordinator that runs the same study with the same --results store, and
measure this generator's share of the clients of every cell it publishes, until the
coordinator closes its session. The generator's number is --index, else the
JOB_COMPLETION_INDEX variable a Kubernetes Indexed Job sets ('fairbench k8s render').`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("index") {
				v := os.Getenv("JOB_COMPLETION_INDEX")
				if v == "" {
					return errors.New("generator: give --index N (0-based), or run it in an Indexed Job, which sets JOB_COMPLETION_INDEX")
				}
				n, err := strconv.Atoi(v)
				if err != nil {
					return fmt.Errorf("generator: JOB_COMPLETION_INDEX=%q is not a number", v)
				}
				index = n
			}
			st, err := study.Load(args[0], runner.Catalog{})
			if err != nil {
				return err
			}
			return runGenerator(cmd.Context(), st, results, index, 0, wait)
		},
	}
	cmd.Flags().StringVar(&results, "results", defaultResults, "the coordinator's results store (a postgres:// URL; a file only for processes on one machine)")
	cmd.Flags().IntVar(&index, "index", 0, "this generator's number, 0-based (default: $JOB_COMPLETION_INDEX)")
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Minute, "how long to wait for the coordinator's session to appear")
	return cmd
}

// runGenerator runs this process as load generator index of st.
func runGenerator(ctx context.Context, st *study.Study, results string, index int, session int64, wait time.Duration) error {
	if index < 0 {
		return fmt.Errorf("generator index %d: give 0 or more", index)
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		return err
	}
	s, err := store.Open(results)
	if err != nil {
		return err
	}
	defer s.Close()
	r := runner.New(st, runner.Options{
		Progress: os.Stderr, Every: time.Second, NoCellHeaders: true,
		Distribution: &runner.Distribution{Store: s},
	})
	return r.Generate(ctx, cells, runner.GenerateOptions{Index: index, Session: session, Wait: wait})
}

// localGenerators starts load generators as processes of this machine,
// each running this command line again as one generator, its output in a
// log file of its own.
type localGenerators struct {
	mu    sync.Mutex
	procs []*exec.Cmd
	logs  []string
	dir   string
}

func (l *localGenerators) spawn(ctx context.Context, sid int64, index int) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir == "" {
		if l.dir, err = os.MkdirTemp("", fmt.Sprintf("fairbench-session-%d-", sid)); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "load generators' output: %s\n", l.dir)
	}
	logPath := filepath.Join(l.dir, fmt.Sprintf("generator-%d.log", index))
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	args := append(append([]string{}, os.Args[1:]...), "--as-generator", strconv.Itoa(index), "--session", strconv.FormatInt(sid, 10))
	c := exec.Command(exe, args...)
	c.Stdout, c.Stderr = f, f
	// Its own process group: a Ctrl-C reaches the coordinator, which ends
	// the session; the generators then stop on their own.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		return err
	}
	l.procs = append(l.procs, c)
	l.logs = append(l.logs, logPath)
	return nil
}

// wait gives the generators time to see the session end, then stops those
// still running.
func (l *localGenerators) wait(grace time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for _, c := range l.procs {
			_ = c.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		for _, c := range l.procs {
			_ = c.Process.Kill() // an error only says it had exited
		}
		<-done
	}
}
