package report

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/arms"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
)

// loadABRun reads the synthetic experiment of runs, rewriting it first with -update.
func loadABRun(t *testing.T) *ABResults {
	t.Helper()
	if goldenfile.Update() {
		if err := os.RemoveAll(abRunDir); err != nil {
			t.Fatal(err)
		}
		if err := writeABRunDir(abRunDir); err != nil {
			t.Fatal(err)
		}
	}
	r, err := LoadAB(abRunDir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestABGolden: the A/B page of runs and of limit searches, whole.
func TestABGolden(t *testing.T) {
	lim, err := abLimitResults()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*ABResults{"ab-run.html": loadABRun(t), "ab-limit.html": lim} {
		var b bytes.Buffer
		if err := WriteABHTML(&b, r); err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
	}
}

// TestABPage: the page has the experiment, every figure's row with the text's cells, the
// verdict, the cause and the charts each kind of experiment draws, and loads nothing.
func TestABPage(t *testing.T) {
	lim, err := abLimitResults()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		r      *ABResults
		charts []string
		want   []string
	}{
		{"run", loadABRun(t), []string{`aria-label="produced rate per second"`, `aria-label="latency distribution"`},
			[]string{"arm B</td><td>producer:linger.ms=20", "a-1 b-1 b-2 a-2 a-3 b-3 b-4 a-4", "<td>produced</td>", "publish latency p99.9",
				"verdict: B is slower than A: produced -", `<tr class="slower"><td>produced</td>`, "<h2>Cause</h2>", "broker 1 cpu:", ">99.9<"}},
		{"limit", lim, []string{`aria-label="boundary A vs B"`},
			[]string{"arm A</td><td>kafka=3.9.1", "ceiling safe rate 10 KB", "(repetitions; needs 4 a side)", "10 KB ceiling: bottleneck cpu (host) → disk write on broker 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteABHTML(&b, tc.r); err != nil {
				t.Fatal(err)
			}
			html := b.String()
			if n := strings.Count(html, "<svg"); n != len(tc.charts) {
				t.Errorf("%d charts, want %d", n, len(tc.charts))
			}
			for _, w := range append(tc.charts, tc.want...) {
				if !strings.Contains(html, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, f := range tc.r.Comparison.Figures {
				if !strings.Contains(html, "<td>"+escaped(figureLabel(f))+"</td>") || !strings.Contains(html, escaped(changeCell(f))) {
					t.Errorf("page lacks the row of %s", figureLabel(f))
				}
			}
			if bad := externalRefs(html); len(bad) > 0 {
				t.Errorf("page reaches outside itself: %q", bad)
			}
		})
	}
}

// escaped escapes s as html/template does text.
func escaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// TestLoadABErrors: a directory without manifest.json is not an A/B experiment; one without
// compare.json did not finish, and the error says how to compare what it has.
func TestLoadABErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadAB(dir); !errors.Is(err, ErrNoAB) {
		t.Errorf("empty dir: %v, want ErrNoAB", err)
	}
	if err := writeJSONFile(dir+"/"+arms.ManifestFile, arms.Manifest{Mode: "run"}); err != nil {
		t.Fatal(err)
	}
	_, err := LoadAB(dir)
	if err == nil || !strings.Contains(err.Error(), "compare.json not found") || !strings.Contains(err.Error(), "plimsoll compare") {
		t.Errorf("no compare.json: %v", err)
	}
}
