package querycheck

import (
	"encoding/json"
	"testing"
	"time"
)

// TestValueIsOneFormAcrossDrivers: the same answer, as each engine's driver
// returns it, renders the same; different answers do not.
func TestValueIsOneFormAcrossDrivers(t *testing.T) {
	for _, tc := range []struct {
		forms []any
		want  string
	}{
		{[]any{int64(1500000), "1500000.0000000000", json.Number("1500000"), float64(1.5e6), []byte("1500000")}, "1500000"},
		{[]any{int64(4599620037822307641), json.Number("4599620037822307641"), uint64(4599620037822307641)}, "4599620037822307641"},
		{[]any{float64(4.5996200378223076e18), "4599620037822307641.4", json.Number("4.599620037822308e18")}, "4.59962e+18"},
		{[]any{1234.5678901, "1234.567890123456789", float32(1234.5679)}, "1234.57"},
		{[]any{"2013-07-01", time.Date(2013, 7, 1, 0, 0, 0, 0, time.UTC), "2013-07-01 00:00:00"}, "2013-07-01 00:00:00"},
		{[]any{"01", int64(1), json.Number("1")}, "1"},
		{[]any{nil}, "NULL"},
		{[]any{"MFGR#2239", []byte("MFGR#2239")}, "MFGR#2239"},
	} {
		for _, v := range tc.forms {
			if got := Value(v); got != tc.want {
				t.Errorf("Value(%#v) = %q, want %q", v, got, tc.want)
			}
		}
	}
	if Value(int64(9007199254740993)) == Value(float64(9007199254740992)) {
		t.Error("an exact integer past 2^53 renders as the float next to it")
	}
	if Checksum([]string{"a", "b"}) != Checksum([]string{"b", "a"}) || Checksum([]string{"a"}) == Checksum([]string{"b"}) {
		t.Error("Checksum depends on the rows' order, or not on their values")
	}
}

func TestWidth(t *testing.T) {
	for q, want := range map[string]int{
		"SELECT COUNT(*) FROM hits": 1,
		"SELECT * FROM hits WHERE URL LIKE '%google%' ORDER BY EventTime LIMIT 10":                                     105,
		"SELECT sum(lo_revenue), intDiv(lo_orderdate, 10000) AS year, p_brand1 FROM lineorder_flat":                    3,
		"SELECT UserID, extract(minute FROM EventTime) AS m, SearchPhrase, COUNT(*) FROM hits GROUP BY UserID":         4,
		`SELECT REGEXP_REPLACE(Referer, '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k, AVG(length(Referer)) FROM hits`: 2,
		"SELECT 'a, b FROM c', 1 FROM t": 2,
	} {
		if got := Width(q, 105); got != want {
			t.Errorf("Width(%q) = %d, want %d", q, got, want)
		}
	}
}
