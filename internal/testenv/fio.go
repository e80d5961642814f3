package testenv

import (
	"encoding/json"
	"strings"
	"testing"
)

// FioJobs splits a fio JSON output into one output per job entry, numbers
// untouched. The seqwrite fixture (numjobs=2 without group_reporting) thus
// gives two real measurements with the same parameters, which the report
// tests use as two disks.
func FioJobs(t testing.TB, text string) []string {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text[strings.Index(text, "{"):]), &doc); err != nil {
		t.Fatal(err)
	}
	var jobs []json.RawMessage
	if err := json.Unmarshal(doc["jobs"], &jobs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, j := range jobs {
		doc["jobs"] = json.RawMessage("[" + string(j) + "]")
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}
