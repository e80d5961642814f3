package store

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// StudySummary is one study name's runs in a results store, as `fairbench
// studies` lists them.
type StudySummary struct {
	Name                     string
	First, Last              time.Time // the first run's start, the last run's end
	Runs, Targets, Workloads int
	Completed, NotCounted    int // runs stored ok, and the others (failed, interrupted)
}

// Studies summarises every study name with runs, oldest study first (by its
// latest run), so the most recent, the one report and compare take by
// default, comes last.
func (s *Store) Studies() ([]StudySummary, error) {
	rows, err := s.db.Query(s.q(`SELECT study_name, MIN(started_at), MAX(ended_at), COUNT(*), COUNT(DISTINCT target),
		COUNT(DISTINCT workload), SUM(CASE WHEN status = ? THEN 1 ELSE 0 END), MAX(id)
		FROM runs GROUP BY study_name ORDER BY MAX(id)`), string(result.StatusOK))
	if err != nil {
		return nil, fmt.Errorf("%s %s: listing studies: %w", s.kind, s.path, err)
	}
	defer rows.Close()
	var out []StudySummary
	for rows.Next() {
		var st StudySummary
		var first, last sql.NullString
		var maxID int64
		if err := rows.Scan(&st.Name, &first, &last, &st.Runs, &st.Targets, &st.Workloads, &st.Completed, &maxID); err != nil {
			return nil, fmt.Errorf("%s %s: listing studies: %w", s.kind, s.path, err)
		}
		// A time that does not parse stays zero: the listing still shows
		// the study (one corrupt row must not hide the others).
		st.First, _ = parseTime(first)
		st.Last, _ = parseTime(last)
		st.NotCounted = st.Runs - st.Completed
		out = append(out, st)
	}
	return out, rows.Err()
}
