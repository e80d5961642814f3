package main

// Study bundles: `fairbench export` writes one (internal/bundle), import
// stores one, and every command reading --results reads one (openResults).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/bundle"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/store"
)

func init() { addCommand(newExport) }

func newExport() *cobra.Command {
	var results, studyName, out string
	cmd := &cobra.Command{
		Use:   "export [--study NAME] [--results FILE] -o FILE",
		Short: "Write a study as one file (a bundle) that report, compare, studies and import read",
		Long: `Write a study's runs as one file, a bundle: a zip archive of the study files as they
were run, every run complete (summary, operations with their histograms, the
per-second series with their interval histograms, environment, warnings,
deviations) and its imported-file records, with a manifest of every part's size
and SHA-256. report, compare and studies read it as --results FILE; import
stores it into a results file. A bundle changed after export is refused, naming
the part that changed. Passwords and tokens are never in it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("-o FILE: name the bundle to write (e.g. -o study.fbz)")
			}
			// A results store's own password is a secret the store's
			// rows can quote in an error text.
			for _, sec := range driver.Secrets(results) {
				redact.AddSecret(sec)
			}
			s, err := openResults(results)
			if err != nil {
				return err
			}
			defer s.Close()
			f := store.Filter{StudyName: studyName, LatestStudy: studyName == ""}
			if studyName != "" && !hasStudy(s, studyName) {
				return unknownStudy(s, studyName)
			}
			m, size, err := writeBundle(s, f, out)
			if err != nil {
				return err
			}
			name := "all runs"
			if len(m.Studies) > 0 {
				name = "study " + m.Studies[len(m.Studies)-1].Name
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s, %s, %s\n", out, name,
				numfmt.Count(m.Runs, "run", "runs"), numfmt.BytesIEC(float64(size)))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&results, "results", defaultResults, "results file, a postgres:// URL of a shared results store, or a bundle")
	fl.StringVar(&studyName, "study", "", "export this study (by name); default: the most recent study")
	fl.StringVarP(&out, "output", "o", "", "the bundle file to write (required; by convention NAME.fbz)")
	return cmd
}

// writeBundle writes the bundle of the runs f selects to path, through a
// temporary file renamed over it, so that a bundle is never half-written;
// a file at path that is not a bundle is never replaced.
func writeBundle(s *store.Store, f store.Filter, path string) (*bundle.Manifest, int64, error) {
	if _, err := os.Stat(path); err == nil && bundle.Detect(path) != bundle.Zip {
		return nil, 0, fmt.Errorf("%s exists and is not a fairbench bundle: choose another output file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fairbench-export-*")
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	m, err := bundle.Write(tmp, s, f)
	if err == nil {
		err = tmp.Sync()
	}
	size, _ := tmp.Seek(0, io.SeekCurrent)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return nil, 0, err
	}
	return m, size, os.Rename(tmp.Name(), path)
}

// embeddedData is the bundle of the runs f selects, as an HTML report
// carries it (report --embed-data).
func embeddedData(s *store.Store, f store.Filter) (*report.Embedded, error) {
	data, _, err := bundle.Bytes(s, f)
	if err != nil {
		return nil, err
	}
	return &report.Embedded{Element: bundle.Element(data), Bytes: len(data)}, nil
}

// importBundles stores the study files, runs and imported-file records of
// bundles (or HTML reports carrying one) as store.Copy does: what the
// results file already holds is skipped, so importing a bundle again adds
// nothing. It handles the arguments only when every one is a bundle.
func importBundles(cmd *cobra.Command, results string, args []string) (handled bool, err error) {
	for i, a := range args {
		if bundle.Detect(a) == bundle.NotBundle {
			if i > 0 {
				return true, fmt.Errorf("%s is not a fairbench bundle: import bundles on their own", a)
			}
			return false, nil
		}
	}
	dst, err := store.Open(results)
	if err != nil {
		return true, err
	}
	defer dst.Close()
	for _, a := range args {
		src, _, err := bundle.Open(a)
		if err != nil {
			return true, err
		}
		c, err := store.Copy(src, dst)
		src.Close()
		if err != nil {
			return true, fmt.Errorf("%s: importing into %s: %w (%d runs stored before it)", a, dst.Path(), err, c.Runs)
		}
		msg := fmt.Sprintf("%s: %s imported into %s, %d study files, %d imported-file records", a,
			numfmt.Count(c.Runs, "run", "runs"), dst.Path(), c.Studies, c.Files)
		if c.Runs == 0 && c.RunsSkipped > 0 {
			msg = fmt.Sprintf("%s: nothing imported: its runs (%d) are already in %s", a, c.RunsSkipped, dst.Path())
		} else if c.RunsSkipped > 0 {
			msg += fmt.Sprintf(" (%d runs already there, skipped)", c.RunsSkipped)
		}
		fmt.Fprintln(cmd.ErrOrStderr(), msg)
	}
	return true, dst.Close()
}
