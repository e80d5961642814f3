package main

import (
	"fmt"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// An OpenSearch Benchmark cell on OpenSearch behind a password and TLS
// (testenv.SecuredOpenSearch: a CA of the test's own, 401 without the
// password) runs to completion as the other tool cells of
// TestToolCellsOnAuthenticatedAndTLSServers do: the password on no child's
// command line, in no output and in no stored run. OSB can only have
// reached the node with the password and the CA fairbench gave it in its
// client-options file: every document is in the index, and the front
// refused no request (a 401 would fail OSB's run, and would mean some
// client went without the password).
func TestOSBCellOnAPasswordAndTLSServer(t *testing.T) {
	if testing.Short() {
		// The race pass would only run the same Go code as
		// TestOSBCellIntegration's once more, for OSB's 1–2 minutes.
		t.Skip("OSB takes a minute or two to start and run: this test runs without -short")
	}
	// OSB's minute is mostly its own waiting (a fifth of the machine's CPU
	// here): it runs beside the other parallel tests. Parallel first, then
	// OSB's machine-wide lock: a test paused until this package's serial
	// tests end would hold it against other packages' OSB tests all along.
	t.Parallel()
	// None from the environment: the URL's password reaches OSB only through
	// the client-options file fairbench writes.
	env := append(testenv.OSBEnv(t), "OPENSEARCH_PASSWORD=")
	s := testenv.SecuredOpenSearch(t)
	index := testenv.OpenSearchIndex(t, s.Node)
	const docs = 2000
	runToolCell(t, toolCell{tool: "opensearch-benchmark", exe: "opensearch-benchmark", url: s.URL, env: env,
		params: fmt.Sprintf("docs = %d\nbulk_size = 500\nindex = %q", docs, index), secret: s.Password})
	if t.Failed() {
		return
	}
	if n := testenv.SearchCount(t, s.Node, index); n != docs {
		t.Errorf("the index holds %d documents, want %d", n, docs)
	}
	if s.Authorized() == 0 || s.Refused() != 0 {
		t.Errorf("the secured front passed %d requests and refused %d: want some, and none refused", s.Authorized(), s.Refused())
	}
}
