//go:build !integration

package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/promexport"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// TestMetricsOpen: the endpoint announces its URL on stderr and serves /metrics until stopped;
// in an A/B repetition the command takes compare's Exporter and serves nothing itself.
func TestMetricsOpen(t *testing.T) {
	var log bytes.Buffer
	mf := &metricsFlags{addr: "127.0.0.1:0"}
	exp, stop, err := mf.open(&log, nil)
	if err != nil || exp == nil {
		t.Fatalf("open: %v", err)
	}
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/metrics`).FindString(log.String())
	if url == "" || !strings.Contains(log.String(), "(this machine only)") {
		t.Fatalf("stderr: %q", log.String())
	}
	resp, err := http.Get(url)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	stop()
	if _, err := http.Get(url); err == nil {
		t.Errorf("%s still serves after stop", url)
	}
	shared := promexport.New()
	got, stop, err := (&metricsFlags{addr: "127.0.0.1:0"}).open(&log, &abHook{metrics: shared})
	stop()
	if err != nil || got != shared {
		t.Errorf("in a repetition: %v, %v; want compare's Exporter", got, err)
	}
}

// TestLimitFeedsMetrics: a search reports each trial's start and verdict to the endpoint; a
// trial reused on resume was not run by this process and counts nowhere.
func TestLimitFeedsMetrics(t *testing.T) {
	exp := promexport.New()
	var j limit.Job
	(&limitFlags{}).progress(&j, io.Discard, exp)
	if j.Base.Load.Live == nil {
		t.Fatal("the trials' load generator does not feed the endpoint")
	}
	judged := func(s verdict.State) *results.Trial { return &results.Trial{Verdict: verdict.Verdict{State: s}} }
	j.Search.Progress(limit.Progress{Trial: 4, Size: 1000, Rate: 5000})
	j.Search.Progress(limit.Progress{Trial: 4, Size: 1000, Rate: 5000, Done: true, Result: judged(verdict.OK)})
	j.Search.Progress(limit.Progress{Trial: 5, Size: 1000, Rate: 8000, Done: true, Reused: true, Result: judged(verdict.Overloaded)})
	w := httptest.NewRecorder()
	exp.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{"plimsoll_trial_number 4", "plimsoll_trial_message_size_bytes 1000", "plimsoll_target_messages_per_second 5000",
		`plimsoll_trials_total{verdict="ok"} 1`, `plimsoll_trials_total{verdict="overloaded"} 0`, `plimsoll_last_verdict{state="ok"} 1`} {
		if !strings.Contains(w.Body.String(), want+"\n") {
			t.Errorf("scrape lacks %q", want)
		}
	}
}
