//go:build !integration

package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/verdict"
)

// TestSearchWorkersFollow: limit --workers' coordinating side (searchWorkers) opens the
// search's topic, waits for both followers to arrive and runs two trials, each a run of the search's id, over two workers that
// follow it as `plimsoll worker --search` does (follow, in this process, on kfake): each trial
// merges both workers' loads, and the search's end ends the followers without an error; nothing
// is left on the cluster.
func TestSearchWorkersFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c := fleettest.Cluster(t)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	short := fleet.Limits{Join: 10 * time.Second, Silence: 3 * time.Second, Lag: 4, Find: 5 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}
	defer func(w, cl fleet.Limits, lead time.Duration) {
		workerLimits, coordinatorLimits, coordinatorLead = w, cl, lead
	}(workerLimits, coordinatorLimits, coordinatorLead)
	workerLimits, coordinatorLimits, coordinatorLead = short, short, 3*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const id = "l1a2b3c-081500"
	sw := &searchWorkers{lf: &limitFlags{workers: 2}, log: io.Discard}
	followed := startFollowers(ctx, t, tgt, id, 2) // each waits for the search's topic, then arrives
	if err := sw.open(ctx, &trial.Where{Target: tgt}, id); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		runID := id + "-t" + string(rune('0'+n))
		cfg := trial.Config{Spec: fleettest.Spec(), Target: tgt, NoProbe: true, Criteria: verdict.DefaultCriteria(), KafkaVersion: "test"}
		cfg.Load.RunID, cfg.Load.TopicPrefix = runID, fleet.Prefix(runID)
		tr, err := sw.trial(ctx, cfg)
		if err != nil {
			t.Fatalf("trial %d: %v", n, err)
		}
		if tr.Verdict.State == verdict.Invalid || len(tr.Workers) != 2 || tr.Counts.Sent == 0 || tr.Counts.Lost != 0 {
			t.Errorf("trial %d: verdict %+v, workers %+v, counts %+v; want both workers' load, judged, none lost", n, tr.Verdict, tr.Workers, tr.Counts)
		}
		tr.Close()
	}
	sw.close(nil)
	for i, err := range followed() {
		if err != nil {
			t.Errorf("follower %d: %v, want none at the search's end", i, err)
		}
	}
	fleettest.NoneLeft(t, c)
}

// startFollowers starts n workers following search id in this process; wait returns each
// one's error once all have stopped.
func startFollowers(ctx context.Context, t *testing.T, tgt target.Target, id string, n int) (wait func() []error) {
	t.Helper()
	base, err := tgt.ClientOpts()
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan struct {
		i   int
		err error
	}, n)
	for i := range n {
		go func() {
			j := fleet.Joining{Index: i, Version: plimsollVersion(), Host: "test"}
			errs <- struct {
				i   int
				err error
			}{i, follow(ctx, base, id, j, tgt, io.Discard)}
		}()
	}
	return func() []error {
		out := make([]error, n)
		for range n {
			e := <-errs
			out[e.i] = e.err
		}
		return out
	}
}
