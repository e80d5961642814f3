package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// PageCheck is what headless Chromium saw when it opened a page.
type PageCheck struct {
	ConsoleErrors []string // console.error calls, uncaught exceptions, failed loads
	Requests      []string // every URL the page asked for besides itself
	LoadMillis    float64  // navigation start to the end of the load event, as the browser measured it
	Charts        int      // svg[data-chart] elements
	EmptyCharts   int      // of those, the ones with no drawn data or no size
	CmpRows       int      // .cmp-row elements
	// ChartFontPx is the smallest rendered size, in CSS px at 100 % zoom, of
	// any text of any chart (its computed font size times the chart's scale,
	// rendered width over viewBox width), every <details> opened;
	// ChartTexts how many text elements were measured.
	ChartFontPx float64
	ChartTexts  int
	// FindingsTop is the top of #findings in px from the top of the page
	// (-1 without one); ViewportHeight the window's inner height.
	FindingsTop, ViewportHeight float64
}

// measureFonts is the script behind PageCheck.ChartFontPx.
const measureFonts = `(() => {
	let min = Infinity, n = 0;
	for (const s of document.querySelectorAll('svg[data-chart]')) {
		const r = s.getBoundingClientRect();
		if (r.width === 0) continue;
		const vb = s.viewBox && s.viewBox.baseVal;
		const scale = vb && vb.width ? r.width / vb.width : 1;
		for (const t of s.querySelectorAll('text')) {
			if (!t.textContent.trim()) continue;
			const px = parseFloat(getComputedStyle(t).fontSize) * scale;
			n++;
			if (px < min) min = px;
		}
	}
	return {Min: n ? min : 0, N: n};
})()`

// CheckPage opens a local HTML file in Debian's headless Chromium (the one
// scripts/test-servers.sh installs) and reports what it saw; with screenshot
// set, a full-page PNG is saved there.
func CheckPage(t testing.TB, path, screenshot string) PageCheck {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	page := "file://" + abs
	bctx, stop := Browser(t, 90*time.Second)
	defer stop()
	var mu sync.Mutex
	var pc PageCheck
	chromedp.ListenTarget(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				pc.ConsoleErrors = append(pc.ConsoleErrors, "console: "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			pc.ConsoleErrors = append(pc.ConsoleErrors, "exception: "+e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				pc.ConsoleErrors = append(pc.ConsoleErrors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; u != page && !strings.HasPrefix(u, "data:") {
				pc.Requests = append(pc.Requests, u)
			}
		}
	})
	var counts struct {
		Charts, Empty, Rows int
		Load, Top, Height   float64
	}
	var fonts struct {
		Min float64
		N   int
	}
	var png []byte
	err = chromedp.Run(bctx,
		network.Enable(), cdplog.Enable(),
		chromedp.Navigate(page),
		chromedp.WaitReady("body"),
		chromedp.Evaluate(`(() => {
			const svgs = [...document.querySelectorAll('svg[data-chart]')];
			const drawn = s => [...s.querySelectorAll('path, polyline')].some(p => (p.getAttribute('d') || p.getAttribute('points') || '').trim() !== '') ||
				[...s.querySelectorAll('rect.bar')].some(r => parseFloat(r.getAttribute('width')) > 0);
			const nav = performance.getEntriesByType('navigation')[0];
			return {
				Charts: svgs.length,
				Empty: svgs.filter(s => !drawn(s) || s.getBoundingClientRect().width === 0).length,
				Rows: document.querySelectorAll('.cmp-row').length,
				Load: nav ? nav.loadEventEnd - nav.startTime : -1,
				Top: (f => f ? f.getBoundingClientRect().top + window.scrollY : -1)(document.getElementById('findings')),
				Height: window.innerHeight,
			};
		})()`, &counts),
		chromedp.FullScreenshot(&png, 100), // 100 = PNG; lower values give JPEG
		chromedp.Evaluate(`document.querySelectorAll('details').forEach(d => { d.open = true }); true`, nil),
		chromedp.Evaluate(measureFonts, &fonts),
	)
	if err != nil {
		t.Fatalf("chromium on %s: %v", page, err)
	}
	if screenshot != "" {
		if err := os.MkdirAll(filepath.Dir(screenshot), 0o755); err == nil {
			if err := os.WriteFile(screenshot, png, 0o644); err != nil {
				t.Logf("screenshot not saved: %v", err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	pc.Charts, pc.EmptyCharts, pc.CmpRows, pc.LoadMillis = counts.Charts, counts.Empty, counts.Rows, counts.Load
	pc.FindingsTop, pc.ViewportHeight = counts.Top, counts.Height
	pc.ChartFontPx, pc.ChartTexts = fonts.Min, fonts.N
	return pc
}

// Browser starts Debian's headless Chromium (the one scripts/test-servers.sh
// installs, $FAIRBENCH_TEST_CHROMIUM; the test skips without it) and returns
// a chromedp context of one tab, ended after timeout, by stop or with the
// test, whichever comes first.
func Browser(t testing.TB, timeout time.Duration) (tab context.Context, stop func()) {
	t.Helper()
	bin := need(t, "FAIRBENCH_TEST_CHROMIUM")
	// Not t.TempDir: Chromium's helper processes may still be writing the profile
	// when the test ends, and a failed removal must not fail the test.
	profile, err := os.MkdirTemp("", "fairbench-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		// The machine has no network but the package registries: keep Chromium
		// from trying its own background connections.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 1024),
		// chromedp waits 20 s for Chromium to print its DevTools address; a
		// machine busy with the rest of the suite took longer (CI: "websocket
		// url timeout reached"). The test's own deadline bounds the wait.
		chromedp.WSURLReadTimeout(timeout),
	)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	stop = func() { cancelBrowser(); cancelAlloc(); cancel() }
	t.Cleanup(stop) // before the profile's removal above: cleanups run last added first
	return bctx, stop
}

// ArtifactDir is where tests leave files for people to look at (screenshots):
// $FAIRBENCH_ARTIFACTS, or test-artifacts/ in the repository root.
func ArtifactDir(t testing.TB, repoRoot string) string {
	t.Helper()
	if d := os.Getenv("FAIRBENCH_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(repoRoot, "test-artifacts")
}
