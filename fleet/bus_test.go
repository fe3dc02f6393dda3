package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/topics"
)

// clock is a test clock: each Now moves it on by step (0: it stands still until set).
type clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Test limits. The clocks step 10 ms a reading where no deadline should pass, 100 ms where
// one must: a few dozen reads of 20 ms at most.
var testLimits = Limits{Join: 3 * time.Second, Silence: 2 * time.Second, Lag: 4, Find: time.Second, Poll: 20 * time.Millisecond, Beat: 50 * time.Millisecond}

// testRun is a kfake cluster holding two topics that are not the run's, and a plan of 3
// workers that starts in an hour of the test clocks. Its window is its first second: the
// tests' workers report a few seconds, then their finals, which come after the window's end as
// a real run's do.
func testRun(t *testing.T) ([]kgo.Opt, Plan) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders", "plimsoll-20261126t140000-ffff-control"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	base := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	p := testPlan()
	p.Start = start.Add(time.Hour)
	p.Spec.Warmup, p.Spec.Duration = 0, time.Second
	return base, p
}

func open(t *testing.T, base []kgo.Opt, p Plan, c Clock) *Coordinator {
	t.Helper()
	co, err := Open(context.Background(), base, p, c, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	return co
}

func join(base []kgo.Opt, p Plan, i int, version string) (*Worker, error) {
	return Join(context.Background(), base, Joining{RunID: p.RunID, Index: i, Version: version, Host: fmt.Sprintf("host-%d", i), BootID: fmt.Sprintf("boot-%d", i%2)},
		&clock{t: start, step: 10 * time.Millisecond}, testLimits)
}

// joinAll joins workers 0..n-1 concurrently with the coordinator's AwaitJoins.
func joinAll(t *testing.T, base []kgo.Opt, p Plan, co *Coordinator, n int) []*Worker {
	t.Helper()
	ws := make([]*Worker, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ws[i], errs[i] = join(base, p, i, p.Version) })
	}
	if err := co.AwaitJoins(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		t.Cleanup(ws[i].Close)
	}
	return ws
}

// leftovers lists the topics under the run's prefix, through a client of its own: a client
// answers a repeated metadata request from its cache for a while (kgo's MetadataMinAge).
func leftovers(t *testing.T, base []kgo.Opt, runID string) []string {
	t.Helper()
	cl, err := kgo.NewClient(base...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range td.Names() {
		if strings.HasPrefix(n, Prefix(runID)) {
			out = append(out, n)
		}
	}
	if !td.Has("orders") || !td.Has("plimsoll-20261126t140000-ffff-control") {
		t.Errorf("a topic outside the run's prefix is gone: %v", td.Names())
	}
	return out
}

// TestRunOverKfake: three workers join, publish four seconds and their finals; the coordinator
// hands on each second merged exactly, in order, returns the merged window, and Close leaves
// nothing under the run's prefix, touches nothing outside it, and tells the workers.
func TestRunOverKfake(t *testing.T) {
	base, p := testRun(t)
	co := open(t, base, p, &clock{t: start, step: 10 * time.Millisecond})
	if got := leftovers(t, base, p.RunID); len(got) != 2 {
		t.Fatalf("topics under the prefix after Open: %v, want the control and results topics", got)
	}
	ws := joinAll(t, base, p, co, 3)
	if h := co.Hosts(); len(h) != 3 || h[0] != (Host{"host-0", "boot-0"}) || h[1] != (Host{"host-1", "boot-1"}) || h[2] != (Host{"host-2", "boot-0"}) {
		t.Errorf("hosts %v, want each worker's name and boot id as it joined", h)
	}
	if ws[1].Share.Producers != (Range{2, 4}) || ws[1].Plan.Spec.String() != p.Spec.String() {
		t.Errorf("worker 1's share %+v of plan %s", ws[1].Share, ws[1].Plan.Spec)
	}
	const seconds = 4
	var wantSec [seconds + 1]*hdr.Hist
	secs := make([][]Second, len(ws))
	finals := make([]Final, len(ws))
	for i, w := range ws {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		for s := 1; s <= seconds; s++ {
			h := hdr.New()
			for range 500 {
				h.Record(latency(r))
			}
			if wantSec[s] == nil {
				wantSec[s] = hdr.New()
			}
			wantSec[s].Merge(h)
			e := encode(t, h)
			secs[i] = append(secs[i], Second{Index: s, Phase: "measured", Tally: Tally{Sent: int64(100*i + s), Backlog: []int64{1, 2}}, Publish: e, EndToEnd: e, ScheduleDelay: e})
		}
		e := encode(t, hdr.New())
		finals[i] = Final{Counts: loadgen.Counts{Sent: 1000, Acked: 1000}, Publish: e, EndToEnd: e, ScheduleDelay: e, AckWait: e,
			Groups: []GroupLedger{{Name: "g0", Producers: w.Share.Producers, Seen: 10, CaughtUp: true}}}
	}
	var wg sync.WaitGroup
	wg.Go(func() { // the workers in step, a second at a time, as their schedule has them
		for s := range seconds + 1 {
			for i, w := range ws {
				var err error
				if s < seconds {
					err = w.Second(context.Background(), secs[i][s])
				} else {
					err = w.Final(context.Background(), finals[i])
				}
				if err != nil {
					t.Error(err)
				}
			}
		}
	})
	var got []MergedSecond
	final, err := co.Collect(context.Background(), func(m MergedSecond) { got = append(got, m) })
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != seconds {
		t.Fatalf("%d seconds handed on, want %d", len(got), seconds)
	}
	for k, m := range got {
		if m.Index != k+1 || m.Workers != 3 || m.Tally.Sent != int64(300+3*(k+1)) || m.Tally.Backlog[1] != 6 || !sameHist(m.Publish, wantSec[k+1]) {
			t.Errorf("second %d: %+v (%+v), want index %d of 3 workers, sent %d, the histograms of all", k+1, m.Tally, m.Publish.Percentiles(), k+1, 300+3*(k+1))
		}
	}
	if final.Counts.Sent != 3000 || len(final.Groups) != 1 || final.Groups[0].Seen != 30 || final.Groups[0].Producers != (Range{0, 7}) {
		t.Errorf("final %+v", final)
	}
	if err := co.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := leftovers(t, base, p.RunID); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
	waitFor(func() bool { return ws[0].Err() != nil })
	// It reads the end record, or, when the topic was deleted first, misses the heartbeats.
	if err := ws[0].Err(); !errors.Is(err, ErrCoordinatorGone) {
		t.Errorf("a worker after Close: %v, want ErrCoordinatorGone", err)
	}
}

func TestWorkersNeverJoin(t *testing.T) {
	base, p := testRun(t)
	co := open(t, base, p, &clock{t: start, step: 100 * time.Millisecond})
	for _, i := range []int{0, 2} {
		w, err := join(base, p, i, p.Version)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a broken check fails, not hangs
	defer cancel()
	err := co.AwaitJoins(ctx)
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "worker 1 of 3 never joined run 20261126t150000-ab12 in 3s") {
		t.Errorf("err = %v, want ErrMissing naming worker 1", err)
	}
	if err := co.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := leftovers(t, base, p.RunID); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		index   int
		version string
		worker  error  // what the worker's Join returns
		coord   error  // what AwaitJoins returns
		says    string // in the coordinator's error
	}{
		{"another version", 1, "v9.9.9", ErrVersion, ErrVersion, "worker 1 runs plimsoll v9.9.9, the coordinator v1.2.3"},
		{"an index beyond N", 3, "v1.2.3", ErrPlan, ErrRefused, "worker 3: invalid worker plan: worker index 3 is outside 0..2"},
	} {
		base, p := testRun(t)
		co := open(t, base, p, &clock{t: start, step: 10 * time.Millisecond})
		if _, err := join(base, p, tc.index, tc.version); !errors.Is(err, tc.worker) {
			t.Errorf("%s: the worker's err = %v, want %v", tc.name, err, tc.worker)
		}
		err := co.AwaitJoins(context.Background())
		if !errors.Is(err, tc.coord) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: the coordinator's err = %v, want %v saying %q", tc.name, err, tc.coord, tc.says)
		}
		if err := co.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := leftovers(t, base, p.RunID); len(got) != 0 {
			t.Errorf("%s: left behind: %v", tc.name, got)
		}
	}
}

func TestDuplicateIndex(t *testing.T) {
	base, p := testRun(t)
	co := open(t, base, p, &clock{t: start, step: 10 * time.Millisecond})
	defer co.Close(context.Background())
	for range 2 {
		w, err := join(base, p, 0, p.Version)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
	}
	if err := co.AwaitJoins(context.Background()); !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), "worker 0 joined from host-0 and from host-0") {
		t.Errorf("err = %v, want ErrDuplicate naming worker 0", err)
	}
}

// TestWrongRunID: a worker started with a run id no coordinator opened finds no control
// topic, says which, and creates nothing.
func TestWrongRunID(t *testing.T) {
	base, p := testRun(t)
	p.RunID = "20261126t150000-0000"
	_, err := Join(context.Background(), base, Joining{RunID: p.RunID, Version: p.Version}, &clock{t: start, step: 100 * time.Millisecond}, testLimits)
	if !errors.Is(err, ErrNoRun) || !strings.Contains(err.Error(), "no topic plimsoll-20261126t150000-0000-control on the cluster after 1s: give the run id the coordinator printed") {
		t.Errorf("err = %v, want ErrNoRun naming the topic", err)
	}
	if got := leftovers(t, base, p.RunID); len(got) != 0 {
		t.Errorf("a worker of an unknown run created %v", got)
	}
}

// TestSilentWorkers: a worker whose reports stop mid-run is named, by the lag behind the
// others' reports or, when no report comes any more, by the clock.
func TestSilentWorkers(t *testing.T) {
	e := func() hdr.Encoded { h, _ := hdr.New().Encode(); return h }()
	sec := func(i int) Second {
		return Second{Index: i, Phase: "measured", Tally: Tally{Backlog: []int64{0, 0}}, Publish: e, EndToEnd: e, ScheduleDelay: e}
	}
	fin := func(w *Worker) Final {
		return Final{Publish: e, EndToEnd: e, ScheduleDelay: e, AckWait: e, Groups: []GroupLedger{{Name: "g0", Producers: w.Share.Producers}}}
	}
	for _, tc := range []struct {
		name    string
		seconds [3]int // the seconds each worker reports
		finals  [3]bool
		silence time.Duration // the plan's silence limit
		says    string
	}{
		{"behind the others", [3]int{9, 9, 2}, [3]bool{}, 0, "worker 2: last report second 2"},
		{"no more reports", [3]int{3, 3, 3}, [3]bool{true, false, true}, 0, "worker 1: last report second 3, nothing read from it for 2s"},
		{"never reported", [3]int{0, 2, 2}, [3]bool{false, true, true}, 0, "worker 0: no report yet"},
		// A run with faults: its plan's limit, not the coordinator's own, and in seconds its lag.
		{"the plan's silence limit", [3]int{3, 3, 3}, [3]bool{true, false, true}, 5 * time.Second, "worker 1: last report second 3, nothing read from it for 5s"},
		{"4 seconds behind", [3]int{9, 9, 5}, [3]bool{true, true, false}, 0, "worker 2: last report second 5, nothing read from it for 0s"},
		{"4 seconds behind, within the plan's lag", [3]int{9, 9, 5}, [3]bool{true, true, false}, 5 * time.Second, "worker 2: last report second 5, nothing read from it for 5s"},
	} {
		base, p := testRun(t)
		p.Silence = tc.silence
		// The coordinator's clock at the plan's start: no report is due before it.
		co := open(t, base, p, &clock{t: p.Start, step: 100 * time.Millisecond})
		ws := joinAll(t, base, p, co, 3)
		for s := 1; s <= 9; s++ { // in step, a second at a time, as their schedule has them
			for i, w := range ws {
				if s <= tc.seconds[i] {
					if err := w.Second(context.Background(), sec(s)); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		for i, w := range ws {
			if tc.finals[i] {
				if err := w.Final(context.Background(), fin(w)); err != nil {
					t.Fatal(err)
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a broken check fails, not hangs
		_, err := co.Collect(ctx, nil)
		cancel()
		if !errors.Is(err, ErrSilent) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "the trial is invalid") {
			t.Errorf("%s: err = %v, want ErrSilent saying %q", tc.name, err, tc.says)
		}
		if err := co.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// waitFor polls cond until it holds or 10 s pass: a worker reads the control topic in its
// own time.
func waitFor(cond func() bool) {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCoordinatorGone: a worker must stop when its coordinator ends the run or is silent for
// the silence limit, and not while it beats.
func TestCoordinatorGone(t *testing.T) {
	for _, tc := range []struct {
		name string
		beat time.Duration
		end  bool   // write an end record
		says string // "": Err stays nil
	}{
		{"silent", time.Hour, false, "no heartbeat from it for 2s (run 20261126t150000-ab12)"},
		{"ended", time.Hour, true, "the coordinator is gone: the search is over"},
		{"beating", testLimits.Beat, false, ""},
		{"silent past the plan's limit", time.Hour, false, "no heartbeat from it for 5s (run 20261126t150000-ab12)"},
	} {
		base, p := testRun(t)
		if strings.Contains(tc.name, "plan's limit") {
			p.Silence = 5 * time.Second
		}
		l := testLimits
		l.Beat = tc.beat
		co, err := Open(context.Background(), base, p, WallClock, l)
		if err != nil {
			t.Fatal(err)
		}
		wc := &clock{t: start}
		w, err := Join(context.Background(), base, Joining{RunID: p.RunID, Index: 0, Version: p.Version}, wc, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Err(); err != nil {
			t.Fatalf("%s: just joined: %v", tc.name, err)
		}
		if tc.end {
			if err := co.cl.ProduceSync(context.Background(), &kgo.Record{Topic: ControlTopic(p.RunID), Key: []byte(keyEnd), Value: []byte("the search is over")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			waitFor(func() bool { return w.Err() != nil })
		} else {
			wc.add(testLimits.Silence)
			if p.Silence > 0 {
				if err := w.Err(); err != nil {
					t.Errorf("%s: silent for its own limit, within the plan's: %v", tc.name, err)
				}
				wc.add(p.Silence - testLimits.Silence)
			}
			if tc.says == "" {
				waitFor(func() bool { return w.Err() == nil }) // the next heartbeat read
			}
		}
		err = w.Err()
		if tc.says == "" && err != nil || tc.says != "" && (!errors.Is(err, ErrCoordinatorGone) || !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.says)
		}
		w.Close()
		if err := co.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenIsPrefixSafe: a run whose prefix is in use is refused, and the topic in the way is
// left alone; a late worker refuses to join.
func TestOpenIsPrefixSafe(t *testing.T) {
	base, p := testRun(t)
	cl, err := kgo.NewClient(base...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(context.Background(), 1, 1, nil, Prefix(p.RunID)+"t0"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), base, p, WallClock, testLimits); !errors.Is(err, topics.ErrTopicsExist) {
		t.Errorf("err = %v, want ErrTopicsExist", err)
	}
	if got := leftovers(t, base, p.RunID); len(got) != 1 {
		t.Errorf("under the prefix: %v, want the topic that was there, alone", got)
	}
}

func TestLateWorker(t *testing.T) {
	base, p := testRun(t)
	co := open(t, base, p, &clock{t: start, step: 10 * time.Millisecond})
	defer co.Close(context.Background())
	_, err := Join(context.Background(), base, Joining{RunID: p.RunID, Index: 0, Version: p.Version}, &clock{t: p.Start.Add(time.Second)}, testLimits)
	if !errors.Is(err, ErrLate) {
		t.Errorf("err = %v, want ErrLate", err)
	}
	if err := co.AwaitJoins(context.Background()); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "worker 0: the plan's start has passed") {
		t.Errorf("the coordinator: %v", err)
	}
}
