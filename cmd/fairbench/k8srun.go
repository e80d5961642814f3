package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/k8s"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
)

// k8sRun is one `fairbench k8s run`: what it applied and how it follows it.
type k8sRun struct {
	kc          k8s.Kubectl
	spec        k8s.Spec
	keep        bool
	pullTimeout time.Duration
	timeout     time.Duration
	out         io.Writer
}

func newK8sRun() *cobra.Command {
	r := &k8sRun{}
	cmd := &cobra.Command{
		Use:   "run STUDY --generators N --image IMAGE --results postgres://USER@HOST/DB",
		Short: "Apply a scaled-out study to a Kubernetes cluster, follow its pods, print the merged report and delete what it created",
		Long: `Render the study's manifests (as k8s render does, every object labelled
` + k8s.LabelRun + `=<this run>), apply them with kubectl, and follow the pods: scheduled,
pulling, running, the coordinator's latest line. When the coordinator ends, the
merged report is read from the results store and printed. Every object it
created is deleted at the end, and on Ctrl-C (--keep keeps them).

It exits non-zero when a pod fails, is not scheduled or its image cannot be
pulled, saying which pod and why (its events and last log lines).

kubectl does the talking (your kubeconfig, --context and RBAC: create, get, list,
delete of configmaps and jobs, get and list of pods, pods/log and events in the
namespace). The results store is read from here as well: its password comes
from FAIRBENCH_RESULTS_PASSWORD or PGPASSWORD here, and from the Secret in the pods.`,
		Example: `  kubectl create secret generic bench-pw --from-literal=PGPASSWORD=…
  fairbench k8s run study.toml --generators 3 --image registry.example/fairbench:v1 \
      --results postgres://bench@stats-db/fairbench --secret bench-pw`,
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{selfStopping: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := study.Load(args[0], runner.Catalog{})
			if err != nil {
				return err
			}
			r.spec.Study = st
			if !cmd.Flags().Changed("generators") {
				for _, w := range st.Workloads {
					r.spec.Generators = max(r.spec.Generators, w.Generators)
				}
			}
			if err := positive("--pull-timeout", r.pullTimeout); err != nil {
				return err
			}
			if err := positive("--timeout", r.timeout); err != nil {
				return err
			}
			r.kc.Namespace = r.spec.Namespace
			r.out = cmd.OutOrStdout()
			return r.run(cmd.Context(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	addSpecFlags(f, &r.spec)
	f.StringVar(&r.spec.Spread, "spread", k8s.SpreadPreferred, "how generators keep apart: preferred (share a node only when they must; the report warns) or required (one node each; extra ones stay Pending and the run fails)")
	f.BoolVar(&r.spec.HostNetwork, "host-network", false, "run the pods in their node's network (a server or results store on the node's loopback becomes reachable)")
	f.BoolVar(&r.keep, "keep", false, "keep the objects after the run (delete them with kubectl delete jobs,configmaps -l "+k8s.LabelRun+"=RUN)")
	f.StringVar(&r.kc.Path, "kubectl", "", "the kubectl binary (default: kubectl on PATH)")
	f.StringVar(&r.kc.Context, "context", "", "kubectl's context (default: its current one)")
	f.DurationVar(&r.pullTimeout, "pull-timeout", 3*time.Minute, "fail when a pod has not started after this long (waiting for its image, a node or its sandbox)")
	f.DurationVar(&r.timeout, "timeout", 24*time.Hour, "fail when the study has not ended after this long")
	return cmd
}

func positive(flag string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s %s: give a positive duration (such as 3m)", flag, d)
	}
	return nil
}

// newRunLabel names one run: unique, a valid label value.
func newRunLabel() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "fb-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

func (r *k8sRun) run(ctx context.Context, log io.Writer) (err error) {
	if err := r.kc.Check(ctx); err != nil {
		return fmt.Errorf("k8s run: %w", err)
	}
	r.spec.Run = newRunLabel()
	var manifests strings.Builder
	if err := k8s.Render(&manifests, r.spec); err != nil {
		return err
	}
	// The results store must answer from here too before anything is
	// applied: the report is read from it at the end.
	s, err := store.Open(r.spec.Results)
	if err != nil {
		return fmt.Errorf("--results: %w", err)
	}
	defer s.Close()

	fmt.Fprintf(log, "k8s run %s: applying study %s, %d generator(s), image %s\n", r.spec.Run,
		escape.Terminal(r.spec.Study.Name), r.spec.Generators, escape.Terminal(r.spec.Image))
	defer func() {
		if r.keep {
			fmt.Fprintf(log, "k8s run %s: kept its objects (--keep): kubectl delete jobs,configmaps -l %s=%s\n", r.spec.Run, k8s.LabelRun, r.spec.Run)
			return
		}
		// Cleaning up after Ctrl-C too: on a context of its own, bounded.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		fmt.Fprintf(log, "k8s run %s: deleting its objects (label %s=%s)\n", r.spec.Run, k8s.LabelRun, r.spec.Run)
		if derr := r.kc.Delete(cctx, k8s.LabelRun, r.spec.Run); derr != nil {
			err = errors.Join(err, fmt.Errorf("k8s run: cleanup: %w", derr))
		} else {
			fmt.Fprintf(log, "k8s run %s: every object it created is gone\n", r.spec.Run)
		}
	}()
	if err := r.kc.Apply(ctx, []byte(manifests.String())); err != nil {
		return fmt.Errorf("k8s run: %w", err)
	}
	ferr := r.follow(ctx, log, &cellTotals{st: s, hash: r.spec.Study.Hash, name: r.spec.Study.Name, prefix: "k8s run " + r.spec.Run})
	var ran *studyRanError
	if ferr != nil && !errors.As(ferr, &ran) {
		if ctx.Err() != nil {
			return &interruptedError{msg: "k8s run interrupted: the runs already stored stay in the results store"}
		}
		return ferr
	}
	if err := writeReport(s, store.Filter{StudyName: r.spec.Study.Name}, "text", ""); err != nil {
		return errors.Join(ferr, err)
	}
	return ferr
}

// follow waits for the coordinator to end, printing what changes, and
// fails with the pod and its reasons when something goes wrong.
func (r *k8sRun) follow(ctx context.Context, log io.Writer, totals *cellTotals) error {
	deadline := time.Now().Add(r.timeout)
	last, lastLine := "", ""
	waitingSince := map[string]time.Time{}
	failed := map[string]bool{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for n := 0; ; n++ {
		pods, err := r.kc.Pods(ctx, k8s.LabelRun, r.spec.Run)
		if err != nil {
			return fmt.Errorf("k8s run: %w", err)
		}
		if s := podSummary(pods); s != last {
			fmt.Fprintf(log, "k8s run %s: %s\n", r.spec.Run, s)
			last = s
		}
		var coordinator *k8s.Pod
		for i := range pods {
			p := &pods[i]
			if p.Component == "coordinator" {
				coordinator = p
			}
			if p.Phase == "Failed" && p.Component == "coordinator" {
				return r.podFailed(ctx, *p, "failed: "+p.Reason)
			}
			if p.Phase == "Failed" && !failed[p.Name] {
				// A generator: the coordinator fails its cell, naming it.
				failed[p.Name] = true
				fmt.Fprintln(log, r.podFailed(ctx, *p, "failed: "+p.Reason)) // its text names the run
			}
			// Waiting for its image or a node, or Pending for any reason
			// (a sandbox the runtime cannot create shows only in the
			// events): failed after --pull-timeout, with its events.
			if p.Waiting == "" && p.Phase != "Pending" {
				delete(waitingSince, p.Name)
				continue
			}
			if _, ok := waitingSince[p.Name]; !ok {
				waitingSince[p.Name] = time.Now()
			}
			if time.Since(waitingSince[p.Name]) > r.pullTimeout {
				why := p.Waiting
				if why == "" {
					why = "still Pending (its events say why)"
				}
				return r.podFailed(ctx, *p, fmt.Sprintf("waited %s: %s", r.pullTimeout, why))
			}
		}
		if coordinator != nil && coordinator.Phase == "Succeeded" {
			fmt.Fprintf(log, "k8s run %s: the coordinator ended\n", r.spec.Run)
			return r.generatorsEnded(ctx)
		}
		// The coordinator's Job failed (its pod deleted: no retries, and no
		// pod says why). A generator's failure is the coordinator's to
		// record: it fails the cell naming the generator, and
		// generatorsEnded makes the command exit non-zero after the report.
		if why, err := r.kc.JobFailed(ctx, k8s.LabelRun, r.spec.Run, "coordinator"); err != nil {
			return fmt.Errorf("k8s run: %w", err)
		} else if why != "" {
			return fmt.Errorf("k8s run %s: %s", r.spec.Run, why)
		}
		if coordinator != nil && coordinator.Phase == "Running" {
			totals.poll(ctx, log)
		}
		if coordinator != nil && coordinator.Phase == "Running" && n%5 == 0 {
			if line := lastLogLine(r.kc.Logs(ctx, coordinator.Name, 5)); line != "" && line != lastLine {
				fmt.Fprintf(log, "k8s run %s: coordinator: %s\n", r.spec.Run, escape.Terminal(line))
				lastLine = line
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("k8s run %s: the study has not ended after --timeout %s", r.spec.Run, r.timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// generatorsEnded waits (bounded) for the generators after the coordinator
// ended: each must have succeeded. One deleted or failed mid-run has left
// its cell failed in the store (the coordinator names it), and the command
// must not exit 0 over it.
func (r *k8sRun) generatorsEnded(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for {
		why, err := r.kc.JobFailed(ctx, k8s.LabelRun, r.spec.Run, "generator")
		if err != nil {
			return fmt.Errorf("k8s run: %w", err)
		}
		if why != "" {
			return &studyRanError{fmt.Errorf("k8s run %s: %s (the report below names the cells it left failed)", r.spec.Run, why)}
		}
		pods, err := r.kc.Pods(ctx, k8s.LabelRun, r.spec.Run)
		if err != nil {
			return fmt.Errorf("k8s run: %w", err)
		}
		done := 0
		for _, p := range pods {
			if p.Component == "generator" && p.Phase == "Succeeded" {
				done++
			}
		}
		if done >= r.spec.Generators {
			return nil
		}
		if time.Now().After(deadline) {
			return &studyRanError{fmt.Errorf("k8s run %s: %d of %d generators succeeded a minute after the coordinator ended", r.spec.Run, done, r.spec.Generators)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// studyRanError is a failure after the study ran: its report is still
// printed, then the command exits non-zero.
type studyRanError struct{ err error }

func (e *studyRanError) Error() string { return e.err.Error() }
func (e *studyRanError) Unwrap() error { return e.err }

func lastLogLine(logs string) string {
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// podSummary is one line of the pods' state: counts per component and phase,
// the nodes they run on, what any waits for.
func podSummary(pods []k8s.Pod) string {
	if len(pods) == 0 {
		return "no pods yet"
	}
	var parts []string
	for _, comp := range []string{"generator", "coordinator"} {
		phases := map[string]int{}
		var order []string
		nodes := map[string]int{}
		for _, p := range pods {
			if p.Component != comp {
				continue
			}
			ph := p.Phase
			if p.Waiting != "" {
				ph = "waiting (" + p.Waiting + ")"
			}
			if phases[ph] == 0 {
				order = append(order, ph)
			}
			phases[ph]++
			if p.Node != "" {
				nodes[p.Node]++
			}
		}
		if len(order) == 0 {
			continue
		}
		var ph []string
		for _, o := range order {
			ph = append(ph, fmt.Sprintf("%d %s", phases[o], o))
		}
		s := comp + "s: " + strings.Join(ph, ", ")
		if comp == "generator" && len(nodes) > 0 {
			var ns []string
			for n, c := range nodes {
				ns = append(ns, fmt.Sprintf("%s×%d", n, c))
			}
			sort.Strings(ns)
			s += " on " + strings.Join(ns, " ")
		}
		parts = append(parts, s)
	}
	return escape.Terminal(strings.Join(parts, "; "))
}

// podFailed is the error for a pod that failed or waited too long: its
// events and last log lines, so that nobody has to look them up.
func (r *k8sRun) podFailed(ctx context.Context, p k8s.Pod, what string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "k8s run %s: pod %s (%s", r.spec.Run, p.Name, p.Component)
	if p.Index != "" {
		fmt.Fprintf(&b, " %s", p.Index)
	}
	fmt.Fprintf(&b, ") %s", what)
	if ev := r.kc.Events(ctx, p.Name); ev != "" {
		b.WriteString("\n  events:\n    " + strings.ReplaceAll(ev, "\n", "\n    "))
	}
	if logs := r.kc.Logs(ctx, p.Name, 20); logs != "" {
		b.WriteString("\n  last log lines:\n    " + strings.ReplaceAll(logs, "\n", "\n    "))
	}
	return errors.New(escape.TerminalText(b.String()))
}
