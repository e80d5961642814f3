package analysis

import (
	"strings"
	"testing"
)

// A server host busy in the idle second before a run is named; one at rest,
// or one without node_exporter (no idle sample), raises nothing.
func TestServerBusyWarning(t *testing.T) {
	busy, quiet, unknown := okRun(1, "busy", 1, 1000), okRun(2, "quiet", 1, 1000), okRun(3, "none", 1, 1000)
	b, q := 37.5, 2.0
	busy.Env.Server.IdleCPU, quiet.Env.Server.IdleCPU = &b, &q
	w := checks(Warnings(group(t, busy, quiet, unknown), ""), checkServerBusy)
	if len(w) != 1 || w[0].Info || len(w[0].Runs) != 1 || w[0].Runs[0] != 1 {
		t.Fatalf("server-busy: %+v", w)
	}
	if m := w[0].Message; !strings.Contains(m, "busy") || !strings.Contains(m, "38 %") || strings.Contains(m, "quiet") || strings.Contains(m, "none") {
		t.Errorf("server-busy names the wrong targets or share: %s", m)
	}
	if w := checks(Warnings(group(t, quiet, unknown), ""), checkServerBusy); len(w) != 0 {
		t.Errorf("server-busy raised for a host at rest or without node_exporter: %+v", w)
	}
}

// Runs after which no check of the answers ran get a note; verified ones none.
func TestUnverifiedNote(t *testing.T) {
	checked, unchecked := okRun(1, "a", 1, 1000), okRun(2, "b", 1, 1000)
	checked.Summary.Verified = true
	w := checks(Warnings(group(t, checked, unchecked), ""), checkUnverified)
	if len(w) != 1 || !w[0].Info || len(w[0].Runs) != 1 || w[0].Runs[0] != 2 || !strings.Contains(w[0].Message, "results not verified") {
		t.Fatalf("unverified: %+v", w)
	}
	if w := checks(Warnings(group(t, checked), ""), checkUnverified); len(w) != 0 {
		t.Errorf("a verified run got the note: %+v", w)
	}
}
