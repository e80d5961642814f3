package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckPage must see what it exists to catch: console errors, exceptions, a
// request leaving the page, and charts with nothing drawn.
func TestCheckPageSeesErrorsRequestsAndEmptyCharts(t *testing.T) {
	page := `<!DOCTYPE html><html><body>
<svg data-chart="ok" width="100" height="50"><path d="M0 0 L10 10"/></svg>
<svg data-chart="empty" width="100" height="50"><path d=""/></svg>
<table><tr class="cmp-row"><td>1</td></tr><tr class="cmp-row"><td>2</td></tr></table>
<img src="http://127.0.0.1:9/pixel.png">
<script>console.error("boom"); throw new Error("thrown");</script>
</body></html>`
	path := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	pc := CheckPage(t, path, "")
	joined := strings.Join(pc.ConsoleErrors, "\n")
	if !strings.Contains(joined, "boom") || !strings.Contains(joined, "thrown") {
		t.Errorf("console errors not seen: %q", pc.ConsoleErrors)
	}
	if len(pc.Requests) != 1 || !strings.Contains(pc.Requests[0], "127.0.0.1:9") {
		t.Errorf("requests: %q, want the image's", pc.Requests)
	}
	if pc.Charts != 2 || pc.EmptyCharts != 1 || pc.CmpRows != 2 {
		t.Errorf("charts %d (empty %d), rows %d; want 2 (1), 2", pc.Charts, pc.EmptyCharts, pc.CmpRows)
	}
}
