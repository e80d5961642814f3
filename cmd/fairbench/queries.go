package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

func init() { addCommand(newQueries) }

// queriesOptions are the flags of one `fairbench queries` command line.
type queriesOptions struct {
	a               adhoc
	engine, version string
	asJSON          bool
	dataDir         string
}

// newQueries is `fairbench queries`: the DDL, loads and queries a query-set
// workload sends to an engine in a dialect, without connecting to one.
func newQueries() *cobra.Command {
	planners := strings.Join(queryset.Kinds(), ", ")
	cmd := &cobra.Command{
		Use:   "queries --workload KIND --engine ENGINE [--dialect modern|18.16] [--json] [--data DIR] [flags]",
		Short: "Print the DDL, loads and queries a query-set workload sends to an engine",
		Long: `Print the statements a query-set workload (` + planners + `) sends to an
engine, in the order it sends them: each table's CREATE TABLE, each table's load
(the rows are fairbench's generated ones) or fill, then the queries. --engine is
the target's engine (clickhouse, postgres or sqlite); --dialect picks ClickHouse's
dialect: modern (a current ClickHouse, as ClickHouse's published studies run it)
or 18.16 (ClickHouse before 19.1). The workload's parameter flags are those of
'fairbench run' (the scale, the form, the seed: they shape the data and pick the
texts).

--json prints one JSON object a line (kind, name, sql; a load's columns and
file); --data DIR also writes each loaded table's rows to DIR/TABLE.tsv, as
tab-separated text (PostgreSQL's COPY text format, ClickHouse's TSV).`,
		Example: `  fairbench queries --workload ssb --engine clickhouse
  fairbench queries --workload clickbench --engine clickhouse --dialect 18.16
  fairbench queries --workload ssb --engine clickhouse --form join --scale 0.01 --json --data /tmp/ssb`,
	}
	define := func(f *pflag.FlagSet, kind string) (*queriesOptions, error) {
		o := &queriesOptions{}
		f.StringVar(&o.a.workload, "workload", workload.Default(), "workload kind ("+planners+"); the flags below are this workload's")
		f.StringVar(&o.engine, "engine", "", "the target's engine: clickhouse, postgres or sqlite (required)")
		f.StringVar(&o.version, "dialect", queryset.VersionModern, "ClickHouse's dialect: "+queryset.VersionModern+" or "+queryset.Version18)
		f.BoolVar(&o.asJSON, "json", false, "print one JSON object a line instead of an SQL script")
		f.StringVar(&o.dataDir, "data", "", "also write each loaded table's generated rows to DIR/TABLE.tsv")
		f.StringArrayVar(&o.a.set, "set", nil, "any workload parameter as key=value (repeatable)")
		return o, o.a.defineWorkloadFlags(f, kind, false)
	}
	withWorkloadFlags(cmd, cobra.NoArgs, define, func(cmd *cobra.Command, o *queriesOptions, _ []string, action workload.Action) error {
		a, engine, version, asJSON, dataDir := &o.a, o.engine, o.version, o.asJSON, o.dataDir
		if action != workload.ActionNone {
			return fmt.Errorf("queries prints a workload's queries and runs nothing: leave out the %s command word", action)
		}
		if !cmd.Flags().Changed("workload") {
			return fmt.Errorf("queries: --workload is required (%s)", planners)
		}
		if engine == "" {
			return errors.New("queries: --engine is required (clickhouse, postgres or sqlite)")
		}
		dialect, err := queryset.DialectFor(engine, version)
		if err != nil {
			return fmt.Errorf("queries: %w", err)
		}
		w, err := workload.Get(a.workload)
		if err != nil {
			return err
		}
		if !slices.Contains(queryset.Kinds(), a.workload) {
			return fmt.Errorf("queries: workload %s sends no fixed query texts; the query-set workloads do: %s", a.workload, planners)
		}
		specs := w.Params()
		given, err := a.flags.Params(a.set, a.workload, specs)
		if err != nil {
			return fmt.Errorf("queries: %w", err)
		}
		v := params.Values{}
		for k, x := range given {
			v[k] = x[0]
		}
		in, err := w.New(params.WithDefaults(specs, v))
		if err != nil {
			return fmt.Errorf("queries: %w", err)
		}
		pl, ok := in.(queryset.Planner)
		if !ok {
			return fmt.Errorf("queries: workload %s says no statements", a.workload)
		}
		plan, err := pl.Plan(dialect)
		if err != nil {
			return fmt.Errorf("queries: %w", err)
		}
		if dataDir != "" {
			if err := queryset.WriteData(cmd.Context(), dataDir, plan); err != nil {
				return fmt.Errorf("queries: %w", err)
			}
		}
		stmts := queryset.Statements(plan, dialect, dataDir != "")
		if asJSON {
			return queryset.WriteJSON(cmd.OutOrStdout(), stmts)
		}
		return queryset.WriteSQL(cmd.OutOrStdout(), stmts)
	})
	return cmd
}
