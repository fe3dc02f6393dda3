//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
)

// runScenario runs a scenario's short mode through the command line on the cluster in dir, or on
// the clusters it starts itself when dir is ""
// (`plimsoll scenario run NAME --mode short --cluster-dir DIR --set k=v ... --out OUT`), checks
// that it exited 0 and stored its record, and that `plimsoll report OUT` renders its page, and
// returns the record and OUT. On a cluster in dir it also checks that the topics and groups
// plimsoll did not create (fixturesUntouched) are as before. PLIMSOLL_KEEP_SCENARIO=DIR keeps OUT under DIR/NAME, to record a
// unit test's data.
func runScenario(t *testing.T, name, dir string, set map[string]string) (results.Scenario, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	if keep := os.Getenv("PLIMSOLL_KEEP_SCENARIO"); keep != "" {
		out = filepath.Join(keep, name)
	}
	args := []string{"scenario", "run", name, "--mode", "short", "--out", out}
	if dir != "" {
		args = append(args, "--cluster-dir", dir)
	}
	for k, v := range set {
		args = append(args, "--set", k+"="+v)
	}
	untouched := func() {}
	if dir != "" {
		st, err := localkafka.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		untouched = fixturesUntouched(t, st.Bootstrap())
	}
	start := time.Now()
	stdout, stderr, code := plimsoll(t, args...)
	untouched()
	t.Logf("plimsoll %s: %s\n%s", strings.Join(args, " "), time.Since(start).Round(time.Second), stdout)
	if code != 0 {
		t.Fatalf("scenario run %s: exit %d\n%s", name, code, stderr)
	}
	rec, err := results.LoadScenario(out)
	if err != nil || rec.Name != name {
		t.Fatalf("the stored record (%s, %v): want scenario %s's", rec.Name, err, name)
	}
	for _, f := range rec.Findings {
		t.Logf("finding: %s = %g %s (%s)", f.Name, f.Value, f.Unit, f.Text)
	}
	if _, stderr, code := plimsoll(t, "report", out); code != 0 {
		t.Errorf("report %s: exit %d\n%s", out, code, stderr)
	}
	if page, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || !strings.Contains(string(page), "<svg") {
		t.Errorf("the scenario's page is missing or has no chart (%v)", err)
	}
	return rec, out
}
