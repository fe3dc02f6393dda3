//go:build !integration

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The latency criteria take durations; their former names (NAME-ms, milliseconds) still set
// the same criterion, which the results record in milliseconds as before.
func TestLatencyFlagsAsDurations(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		slo     float64 // PublishP99SLOMs after parsing
		late    float64 // ClientMaxLateMs
		sched   float64 // ClientSchedP99Ms
		delay   float64 // ScheduleP99Ms
		wantErr string
	}{
		{nil, 1000, 500, 25, 50, ""},
		{[]string{"--slo-p99", "250ms", "--client-max-late", "1s", "--client-sched-p99", "1.5ms", "--client-max-schedule-delay", "0"}, 250, 1000, 1.5, 0, ""},
		{[]string{"--slo-p99-ms", "250", "--client-max-late-ms", "1000", "--client-sched-p99-ms", "1.5", "--client-max-schedule-delay-ms", "0"}, 250, 1000, 1.5, 0, ""},
		{[]string{"--slo-p99", "0"}, 0, 500, 25, 50, ""},
		{[]string{"--slo-p99", "1000"}, 0, 0, 0, 0, "a duration needs a unit: 1000ms or 1000s"},
		{[]string{"--client-max-late", "-5ms"}, 0, 0, 0, 0, "give a positive duration"},
		{[]string{"--slo-p99", "soon"}, 0, 0, 0, 0, "give a duration such as 1s or 250ms"},
	} {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.SetOutput(new(bytes.Buffer))
		c := addCriteriaFlags(fs)
		err := fs.Parse(tc.args)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case c.PublishP99SLOMs != tc.slo || c.ClientMaxLateMs != tc.late || c.ClientSchedP99Ms != tc.sched || c.ScheduleP99Ms != tc.delay:
			t.Errorf("%q: slo %v, late %v, sched %v, delay %v; want %v, %v, %v, %v", tc.args,
				c.PublishP99SLOMs, c.ClientMaxLateMs, c.ClientSchedP99Ms, c.ScheduleP99Ms, tc.slo, tc.late, tc.sched, tc.delay)
		}
	}
}

// A former name works, says on stderr which flag replaced it, and is not in the help; a
// negative value given through it is refused naming the new flag.
func TestFormerLatencyNames(t *testing.T) {
	var stderr bytes.Buffer
	cmd := newRunCmdFor(&abHook{checkOnly: true})
	cmd.SetArgs([]string{"--slo-p99-ms", "250", "--json"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(&stderr)
	noteFormerNames(cmd)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if want := "note: --slo-p99-ms is the former name of --slo-p99, which takes a duration: --slo-p99-ms 250 is --slo-p99 250ms\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	help, _, _ := runCLI(t, "run", "--help")
	if strings.Contains(help, "-ms") || !strings.Contains(help, "--slo-p99 DURATION") {
		t.Errorf("run --help shows a former name, or not --slo-p99 DURATION:\n%s", help)
	}
	_, errOut, code := runCLI(t, "run", "--slo-p99-ms", "-5", "--bootstrap", "127.0.0.1:1")
	if code != ExitUsage || !strings.Contains(errOut, "--slo-p99 -5ms: give a positive duration") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
