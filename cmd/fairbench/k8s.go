package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/k8s"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// newK8s is `fairbench k8s`, a group for the Kubernetes commands: render
// writes the manifests (for GitOps), run applies, follows and cleans up.
func newK8s() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Run a study with several load generators on Kubernetes",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newK8sRender(), newK8sRun())
	return cmd
}

func newK8sRender() *cobra.Command {
	var (
		spec k8s.Spec
		out  string
	)
	cmd := &cobra.Command{
		Use:   "render STUDY --generators N --image IMAGE --results postgres://USER@HOST/DB",
		Short: "Write the Kubernetes manifests of a scaled-out study: a ConfigMap, the generators' Indexed Job and the coordinator's Job",
		Long: `Write the Kubernetes manifests that run STUDY with N load generators: a
ConfigMap holding the study file, an Indexed Job whose N pods are the generators
(kept apart per node by pod anti-affinity: preferred, or required with --spread required), and a Job running the coordinator. The pods
meet in the shared PostgreSQL results store. ` + "`kubectl apply -f`" + ` of the output is the
whole deployment.

Passwords never go in the manifests: the study's target URLs and the results
URL must not carry one. Put them in a Secret and name it with --secret; its keys
become the pods' environment (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH,
OPENSEARCH_PASSWORD, CLICKHOUSE_PASSWORD, …).`,
		Example: `  kubectl create secret generic bench-pw --from-literal=PGPASSWORD=…
  fairbench k8s render study.toml --generators 4 --image registry.example/fairbench:v1 \
      --results postgres://bench@stats-db/fairbench --secret bench-pw | kubectl apply -f -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := study.Load(args[0], runner.Catalog{})
			if err != nil {
				return err
			}
			spec.Study = st
			if !cmd.Flags().Changed("generators") {
				// The study's own: as many pods as its most scaled-out workload.
				for _, w := range st.Workloads {
					spec.Generators = max(spec.Generators, w.Generators)
				}
			}
			// Rendered whole before anything is written, so that a refused
			// spec leaves no partial file behind.
			var buf bytes.Buffer
			if err := k8s.Render(&buf, spec); err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("k8s render: %w", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	addSpecFlags(f, &spec)
	f.StringVar(&spec.Spread, "spread", k8s.SpreadPreferred, "how generators keep apart: preferred (share a node only when they must) or required (one node each; extra ones stay Pending)")
	f.BoolVar(&spec.HostNetwork, "host-network", false, "run the pods in their node's network (a server or results store on the node's loopback becomes reachable)")
	f.StringVarP(&out, "output", "o", "", "write the manifests to FILE instead of standard output")
	return cmd
}

// addSpecFlags declares the flags render and run share: what the manifests
// hold.
func addSpecFlags(f *pflag.FlagSet, spec *k8s.Spec) {
	f.IntVar(&spec.Generators, "generators", 0, "number of load generator pods (default: the study's largest generators = N)")
	f.StringVar(&spec.Image, "image", "", "the fairbench container image (scripts/image.sh builds it)")
	f.StringVar(&spec.Results, "results", "", "the shared results store, postgres://USER@HOST/DB (the password goes in the Secret as PGPASSWORD)")
	f.StringVar(&spec.Secret, "secret", "", "a Secret whose keys become the pods' environment (passwords)")
	f.StringVar(&spec.Namespace, "namespace", "", "namespace written on every object (default: kubectl's)")
	f.StringVar(&spec.Name, "name", "", "object name prefix (default: derived from the study's name)")
	f.StringVar(&spec.CPU, "cpu", k8s.DefaultCPU, "CPU of each generator, requested and limited")
	f.StringVar(&spec.Memory, "memory", k8s.DefaultMemory, "memory of each generator, requested and limited")
	f.StringVar(&spec.CoordinatorCPU, "coordinator-cpu", k8s.DefaultCoordinatorCPU, "CPU of the coordinator, requested and limited")
	f.StringVar(&spec.CoordinatorMemory, "coordinator-memory", k8s.DefaultCoordinatorMemory, "memory of the coordinator, requested and limited")
}
