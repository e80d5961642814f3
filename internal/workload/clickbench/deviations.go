package clickbench

import "github.com/fairbench/fairbench/internal/result"

// hotFromOneTry is the deviation of a run in which a query's hot try failed
// while another succeeded: ClickBench gives such a query no hot time (its
// index.html selectRun, 873–875, takes the smaller of tries two and three
// only when both have one), fairbench the successful try's.
const hotFromOneTry = "a query whose hot try failed has the other hot try's time: ClickBench gives such a query no hot time (and its score counts it as missing)"

// Deviations implements workload.Deviator.
func (in *instance) Deviations(s *result.Summary) []string {
	for _, q := range s.Queries {
		if hotFromOneTryOnly(q) {
			return []string{hotFromOneTry}
		}
	}
	return nil
}

// hotFromOneTryOnly reports whether q's hot time comes from some of its hot
// tries while another failed.
func hotFromOneTryOnly(q result.QueryResult) bool {
	if len(q.Tries) < 3 {
		return false
	}
	failed, ok := 0, 0
	for _, t := range q.Tries[1:] {
		if t == nil {
			failed++
		} else {
			ok++
		}
	}
	return failed > 0 && ok > 0
}
