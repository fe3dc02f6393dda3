//go:build integration

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// requireBrowserEnv makes the live page's browser checks fail, rather than be skipped, without
// chromium. `make test` sets it when it runs as root, after installing Debian's chromium.
const requireBrowserEnv = "PLIMSOLL_REQUIRE_BROWSER"

// screenshotDir is where the browser checks save their screenshots: kept after the test, unlike
// t.TempDir, and ignored by git.
const screenshotDir = "testdata-out"

// lockedBuffer is a command's output, read while the command still writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var liveURL = regexp.MustCompile(`live page: (http://\S+)`)

// browser is a headless chromium for the live page's checks, or nil (and a note in the log)
// when this machine has none and the run does not require one.
func browser(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv(requireBrowserEnv) != "" {
			t.Fatalf("chromium is required here (%s is set) but not found: %v", requireBrowserEnv, err)
		}
		t.Logf("no chromium, so the live page's browser checks did not run (set %s to make that a failure; apt-get install chromium)", requireBrowserEnv)
		return nil, nil
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1200, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	// Start the browser now, before the search's trials, so its start-up does not load the host
	// while a trial is measured.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		cancelCtx()
		cancelAlloc()
		t.Fatalf("starting chromium (%s): %v", path, err)
	}
	return ctx, func() { cancelCtx(); cancelAlloc() }
}

// liveFigures is what the browser reads off the live page.
type liveFigures struct {
	Live      bool   `json:"live"`      // the live page, not yet the report
	Seconds   int    `json:"seconds"`   // points of the running trial's rate chart
	Trials    int    `json:"trials"`    // rows of the trials table
	Charts    int    `json:"charts"`    // svg elements
	EmptyPath int    `json:"emptyPath"` // chart paths without a d attribute
	Paths     int    `json:"paths"`
	Status    string `json:"status"`
}

const readLive = `(() => {
	const rate = document.querySelector("figure.live-rate");
	const paths = [...document.querySelectorAll("svg.chart path")];
	return {live: !!document.getElementById("live"), seconds: rate ? +rate.dataset.seconds : 0,
		trials: document.querySelectorAll("#live-trials tbody tr[class]").length,
		charts: document.querySelectorAll("svg.chart").length, paths: paths.length,
		emptyPath: paths.filter(p => !(p.getAttribute("d") || "").trim()).length,
		status: (document.getElementById("live-status") || {}).textContent || ""};
})()`

// checkLivePage follows the live page of a running search at url in the browser: its charts
// render and update, and once the search has ended (ended is closed) the page is the report in
// index.html. It saves screenshots of both under testdata-out and logs where.
func checkLivePage(t *testing.T, ctx context.Context, url, index string, ended <-chan struct{}) {
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Errorf("loading the live page %s: %v", url, err)
		return
	}
	first, err := waitFigures(ctx, ended, 3*time.Minute, func(f liveFigures) bool { return !f.Live || f.Seconds >= 2 })
	if err != nil || !first.Live {
		t.Errorf("the live page never drew a running trial's seconds (%+v): %v", first, err)
		return
	}
	if first.Charts < 2 || first.Paths == 0 || first.EmptyPath > 0 {
		t.Errorf("the live page's charts did not render: %+v", first)
	}
	shot(t, ctx, "live.png")
	second, err := waitFigures(ctx, ended, time.Minute, func(f liveFigures) bool {
		return !f.Live || f.Seconds > first.Seconds || f.Trials > first.Trials
	})
	if err != nil || !second.Live {
		t.Errorf("the live page did not update by itself: first %+v, then %+v: %v", first, second, err)
	}
	t.Logf("the live page: %+v, then %+v", first, second)
	select {
	case <-ended:
	case <-ctx.Done():
		return
	}
	if _, err := waitFigures(ctx, nil, 30*time.Second, func(f liveFigures) bool { return !f.Live }); err != nil {
		t.Errorf("the page did not become the report once the search ended: %v", err)
		return
	}
	shot(t, ctx, "report.png")
	checkIsReport(t, ctx, index)
}

// checkIsReport compares the page's text with index.html's, opened from the disk in a new tab.
func checkIsReport(t *testing.T, ctx context.Context, index string) {
	const text = `document.querySelector("main").innerText`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](text))
	if err != nil {
		t.Errorf("reading the page: %v", err)
		return
	}
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+index)); err != nil {
		t.Errorf("opening %s: %v", index, err)
		return
	}
	want, err := chromedp.Run(tab, chromedp.Evaluate[string](text))
	if err != nil || got != want || len(want) < 200 {
		t.Errorf("the page at the end is not the report in %s (%v):\npage:\n%.600s\nindex.html:\n%.600s", index, err, got, want)
	}
}

// waitFigures reads the page every 500 ms until ok holds, within passes or ended is closed.
func waitFigures(ctx context.Context, ended <-chan struct{}, within time.Duration, ok func(liveFigures) bool) (liveFigures, error) {
	deadline := time.Now().Add(within)
	for {
		f, err := chromedp.Run(ctx, chromedp.Evaluate[liveFigures](readLive))
		if err == nil && ok(f) {
			return f, nil
		}
		if time.Now().After(deadline) {
			return f, fmt.Errorf("not within %v (last read error: %v)", within, err)
		}
		select {
		case <-ctx.Done():
			return f, ctx.Err()
		case <-ended:
			return f, errors.New("the search ended first")
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// shot saves a PNG of the whole page under testdata-out/<test name>/.
func shot(t *testing.T, ctx context.Context, name string) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	dir, _ := filepath.Abs(filepath.Join(screenshotDir, t.Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Error(err)
		return
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Error(err)
		return
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}
