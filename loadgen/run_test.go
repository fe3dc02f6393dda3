package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fakeCluster starts an in-process kfake cluster (client logic only, never a figure).
func fakeCluster(t *testing.T, brokers int) (target.Target, *kadm.Client) {
	t.Helper()
	tgt, adm, _ := fakeClusterCtl(t, brokers)
	return tgt, adm
}

func fakeClusterCtl(t *testing.T, brokers int) (target.Target, *kadm.Client, *kfake.Cluster) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return tgt, kadm.NewClient(cl), c
}

func smallSpec() workload.Spec {
	s := workload.Default()
	s.Topics = 2
	s.PartitionsPerTopic = 3
	s.ReplicationFactor = 1
	s.Producers = 2
	s.Rate = 2500
	s.MessageSize = 100
	s.ConsumerGroups = 2
	s.ConsumersPerGroup = 2
	s.Warmup = 400 * time.Millisecond
	s.Duration = 1200 * time.Millisecond
	// Members learn of a rebalance at their next heartbeat: keep set-up short.
	s.ConsumerProps.Set("heartbeat.interval.ms", "100")
	return s
}

// forEachFetch runs test on each consumer fetch path: franz-go's and plimsoll's own.
func forEachFetch(t *testing.T, test func(t *testing.T, fetch string)) {
	for _, f := range []string{FetchFranzGo, FetchPlimsoll} {
		t.Run(f, func(t *testing.T) { test(t, f) })
	}
}

func TestRunAgainstKfake(t *testing.T) { forEachFetch(t, testRunAgainstKfake) }

func testRunAgainstKfake(t *testing.T, fetch string) {
	tgt, adm := fakeCluster(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var seconds, lives int
	var last Live
	var lastPub int64
	res, err := Run(ctx, smallSpec(), tgt, Options{RunID: "kfaketest", DrainTimeout: 10 * time.Second, ConsumerFetch: fetch,
		Progress: func(Second) { seconds++ },
		Live:     func(l *Live) { lives, last, lastPub = lives+1, *l, l.Publish.Count() }})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counts
	if want := map[string]string{FetchFranzGo: "", FetchPlimsoll: FetchPlimsoll}[fetch]; res.Config.ConsumerFetch != want {
		t.Errorf("result's consumer fetch path %q, want %q", res.Config.ConsumerFetch, want)
	}
	t.Logf("counts %+v excluded %+v", c, res.ExcludedCounts)
	t.Logf("produced %.0f/s consumed %.0f/s publish %+v e2e %+v sched %+v", res.ProducedMsgsPerSec, res.ConsumedMsgsPerSec,
		res.Latency.Publish, res.Latency.EndToEnd, res.Latency.ScheduleDelay)
	// The schedule puts exactly 2500/s x 1.2 s in the window; a generator starved of CPU may
	// leave some unsent, but none may vanish.
	if c.Sent+c.Unsent != 3000 {
		t.Errorf("sent %d + unsent %d in the window, want exactly 3000 scheduled", c.Sent, c.Unsent)
	}
	if c.Acked != c.Sent || c.Failed != 0 {
		t.Errorf("acked %d failed %d of %d sent", c.Acked, c.Failed, c.Sent)
	}
	if c.Lost != 0 || c.Duplicated != 0 || c.Unconsumed != 0 || c.OutOfOrder != 0 {
		t.Errorf("ledger: lost %d dup %d unconsumed %d ooo %d", c.Lost, c.Duplicated, c.Unconsumed, c.OutOfOrder)
	}
	if c.Consumed != 2*c.Acked {
		t.Errorf("consumed %d, want 2 groups x %d acked", c.Consumed, c.Acked)
	}
	// The window's messages over its 1.2 s are exactly the target when none is unsent; the
	// rates are the lesser of that and the acknowledgements (consumptions) that arrived in the
	// window, which a cluster keeping up delivers within a batch or two of the target.
	want := float64(c.Acked) / 1.2
	if res.ProducedMsgsPerSec != math.Min(want, res.Arrived.AckedMsgsPerSec) || res.ProducedMsgsPerSec > res.TargetMsgsPerSec ||
		res.ConsumedMsgsPerSec != math.Min(2*want, res.Arrived.ConsumedMsgsPerSec) || want != res.TargetMsgsPerSec {
		t.Errorf("produced %v msgs/s, consumed %v, of %v targeted; want the lesser of %v (and twice that) and the arrivals %+v",
			res.ProducedMsgsPerSec, res.ConsumedMsgsPerSec, res.TargetMsgsPerSec, want, res.Arrived)
	}
	if a := res.Arrived; math.Abs(a.AckedMsgsPerSec/want-1) > 0.02 || math.Abs(a.ConsumedMsgsPerSec/(2*want)-1) > 0.02 {
		t.Errorf("arrivals %+v, want within 2%% of %v and twice that: kfake keeps up", a, want)
	}
	if res.ExcludedCounts.Sent == 0 || res.ExcludedCounts.Lost != 0 {
		t.Errorf("warm-up counts %+v", res.ExcludedCounts)
	}
	if res.Latency.Publish.Count != c.Acked || res.Latency.EndToEnd.Count != c.Consumed {
		t.Errorf("histogram counts publish %d e2e %d, want %d and %d", res.Latency.Publish.Count, res.Latency.EndToEnd.Count, c.Acked, c.Consumed)
	}
	if res.Window.SettleSeconds <= 0 || len(res.Notes) != 0 {
		t.Errorf("settling: %v s, notes %q", res.Window.SettleSeconds, res.Notes)
	}
	for _, g := range res.Groups {
		if g.Foreign != 0 {
			t.Errorf("group %s counted %d foreign records: the settling records must count nowhere", g.Name, g.Foreign)
		}
	}
	if !res.Window.DrainComplete || len(res.Groups) != 2 || !res.Groups[0].CaughtUp {
		t.Errorf("window %+v groups %+v", res.Window, res.Groups)
	}
	if seconds == 0 || res.Timeline.Len() != seconds {
		t.Errorf("progress called %d times, timeline has %d seconds", seconds, res.Timeline.Len())
	}
	if res.Config.ClientProps.Producer.Props["linger.ms"] != "5" {
		t.Errorf("effective producer props %v", res.Config.ClientProps.Producer.Props)
	}
	checkLive(t, res, last, lastPub, lives, seconds)
	checkResultJSON(t, res)
	checkNoTopics(t, adm, "plimsoll-kfaketest-")
}

// checkLive checks the last second Options.Live saw against the run's Result: its counts are
// the Result's but for those known only at the end, its histograms the Result's.
func checkLive(t *testing.T, res *Result, last Live, lastPub int64, lives, seconds int) {
	t.Helper()
	rows := slices.Collect(res.Timeline.All())
	if lives != seconds || last.RunID != res.RunID || len(rows) == 0 || last.Second != rows[len(rows)-1] {
		t.Errorf("live called %d times (progress %d), last for run %q second %+v", lives, seconds, last.RunID, last.Second)
	}
	for _, c := range []struct {
		name      string
		live, res Counts
	}{{"measured", last.Measured, res.Counts}, {"excluded", last.Excluded, res.ExcludedCounts}} {
		want := c.res
		want.Lost, want.Unconsumed, want.InFlightAtEnd = 0, 0, 0
		if c.live != want {
			t.Errorf("%s: live counts %+v\n want the result's %+v but lost, unconsumed, in flight", c.name, c.live, want)
		}
	}
	if lastPub != res.Latency.Publish.Count || last.Publish != res.Histograms.Publish || last.EndToEnd != res.Histograms.EndToEnd ||
		last.ScheduleDelay != res.Histograms.ScheduleDelay {
		t.Errorf("live publish histogram held %d values, the result's %d; live histograms must be the result's", lastPub, res.Latency.Publish.Count)
	}
}

// checkNoTopics checks that no topic with the run's prefix is left.
func checkNoTopics(t *testing.T, adm *kadm.Client, prefix string) {
	t.Helper()
	td, err := adm.ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name := range td {
		if strings.HasPrefix(name, prefix) {
			t.Errorf("topic %s left behind", name)
		}
	}
}

// checkResultJSON checks result.json's documented keys and that the raw histograms it carries
// decode to the ones its latency figures summarise.
func checkResultJSON(t *testing.T, res *Result) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"target_msgs_per_sec"`, `"produced_msgs_per_sec"`, `"produced_bytes_per_sec"`, `"consumed_msgs_per_sec"`,
		`"counts"`, `"sent"`, `"acked"`, `"failed"`, `"consumed"`, `"lost"`, `"duplicated"`, `"latency_ms"`, `"publish"`,
		`"end_to_end"`, `"schedule_delay"`, `"p50"`, `"p90"`, `"p99"`, `"p999"`, `"max"`, `"timeline"`,
		`"histograms"`, `"ack_wait"`, `"hdr"`, `"max_ns"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("result JSON lacks %s", k)
		}
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	h := back.Histograms
	for _, c := range []struct {
		name string
		hist *hdr.Hist
		want Percentiles
	}{{"publish", h.Publish, res.Latency.Publish}, {"end_to_end", h.EndToEnd, res.Latency.EndToEnd},
		{"schedule_delay", h.ScheduleDelay, res.Latency.ScheduleDelay}, {"ack_wait", h.AckWait, res.Latency.AckWait}} {
		if c.hist == nil || c.hist.Percentiles() != c.want {
			t.Errorf("histograms.%s read back from JSON does not give latency_ms.%s %+v", c.name, c.name, c.want)
		}
	}
}

func TestRunRefusesExistingPrefixTopics(t *testing.T) {
	tgt, adm := fakeCluster(t, 1)
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "plimsoll-taken-t0"); err != nil {
		t.Fatal(err)
	}
	_, err := Run(ctx, smallSpec(), tgt, Options{RunID: "taken"})
	if !errors.Is(err, ErrTopicsExist) {
		t.Fatalf("err = %v, want ErrTopicsExist", err)
	}
	td, _ := adm.ListTopics(ctx)
	if _, ok := td["plimsoll-taken-t0"]; !ok {
		t.Error("the existing topic was touched")
	}
}

func makeRecords(n, producers, size int) []*kgo.Record {
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: make([]byte, size)}
		Stamp{Producer: uint32(i % producers), Seq: uint64(i / producers)}.Encode(recs[i].Value)
	}
	return recs
}

func TestRunBacklog(t *testing.T) { forEachFetch(t, testRunBacklog) }

func testRunBacklog(t *testing.T, fetch string) {
	tgt, _ := fakeCluster(t, 1)
	s := smallSpec()
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 1
	s.Rate = 4000
	s.BacklogBytes = 100 * 1000 // 1000 messages of 100 B: a quarter second at 4000/s
	s.BacklogDrainRatio = 1
	s.Warmup = 200 * time.Millisecond
	s.Duration = time.Second
	res, err := Run(context.Background(), s, tgt, Options{RunID: "backlog", ConsumerFetch: fetch})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Backlog
	if b == nil || b.BuiltBytes < s.BacklogBytes || b.BuildSeconds <= 0 {
		t.Fatalf("backlog %+v", b)
	}
	if !b.Drained || b.DrainSeconds < 0 || b.DrainSeconds > res.Window.MeasuredSeconds {
		t.Errorf("backlog not drained inside the window: %+v", b)
	}
	// The window starts when consumers resume: the backlog's messages are excluded, and the
	// consumers, catching up, consume faster than the producers produce.
	if res.ExcludedCounts.Sent < 1000 || res.Counts.Lost != 0 || res.ExcludedCounts.Lost != 0 {
		t.Errorf("counts %+v excluded %+v", res.Counts, res.ExcludedCounts)
	}
	if b.ConsumedMsgsPerSec <= res.ProducedMsgsPerSec {
		t.Errorf("consumed %.0f/s while draining (by arrival, backlog included), produced %.0f/s", b.ConsumedMsgsPerSec, res.ProducedMsgsPerSec)
	}
	phases := map[string]bool{}
	for sec := range res.Timeline.All() {
		phases[sec.Phase] = true
	}
	if !phases[PhaseBacklog] && res.Window.BacklogSeconds > 1 {
		t.Errorf("timeline phases %v lack the backlog", phases)
	}
}

func TestRunInterrupted(t *testing.T) {
	tgt, adm := fakeCluster(t, 1)
	s := smallSpec()
	s.Duration = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt once the producers are going (the first progress second), as Ctrl-C would.
	res, err := Run(ctx, s, tgt, Options{RunID: "intr", Progress: func(Second) { cancel() }})
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrInterrupted wrapping context.Canceled", err)
	}
	if res == nil || !res.Interrupted || res.Counts.Sent+res.ExcludedCounts.Sent == 0 {
		t.Fatalf("partial result %+v", res)
	}
	checkNoTopics(t, adm, "plimsoll-intr-")
}

func TestRunProducersOnlyUnpaced(t *testing.T) {
	tgt, _ := fakeCluster(t, 1)
	s := smallSpec()
	s.ConsumerGroups = 0
	s.Rate = 0 // as fast as the client accepts
	s.Producers = 1
	s.Warmup = 100 * time.Millisecond
	s.Duration = 500 * time.Millisecond
	s.ProducerProps.Set("buffer.memory", "20000") // 200 records of 100 B: the pool will fill
	res, err := Run(context.Background(), s, tgt, Options{RunID: "maxrate"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counts
	if c.Sent == 0 || c.Acked != c.Sent || c.Consumed != 0 || c.Unsent != 0 {
		t.Errorf("counts %+v", c)
	}
	if res.Latency.ScheduleDelay.Max != 0 {
		t.Errorf("unpaced sends have no schedule; delay %+v", res.Latency.ScheduleDelay)
	}
	if res.Client.MaxInFlight > 200 || res.Client.BufferFullWaits == 0 {
		t.Errorf("a pool of 200 records: max in flight %d, buffer-full waits %d", res.Client.MaxInFlight, res.Client.BufferFullWaits)
	}
}

func TestRunBadInputTouchesNothing(t *testing.T) {
	tgt, adm := fakeCluster(t, 1)
	s := smallSpec()
	s.ProducerProps.Set("max.block.ms", "100")
	_, err := Run(context.Background(), s, tgt, Options{RunID: "bad"})
	if !errors.Is(err, ErrUnknownProperty) || !strings.Contains(err.Error(), "max.block.ms") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Run(context.Background(), smallSpec(), tgt, Options{TopicPrefix: "x"}); !errors.Is(err, ErrBadPrefix) {
		t.Errorf("short prefix: err = %v", err)
	}
	bad := smallSpec()
	bad.Producers = 0
	if _, err := Run(context.Background(), bad, tgt, Options{}); !errors.Is(err, workload.ErrInvalid) {
		t.Errorf("invalid spec: err = %v", err)
	}
	td, _ := adm.ListTopics(context.Background())
	if len(td) != 0 {
		t.Errorf("topics created on bad input: %v", td.Names())
	}
}

// TestRunFailedNotLost: batches the cluster rejects are failed at the producer, not lost, and
// the consumers' ledger agrees with the producers' acknowledgements. kfake answers the rejected
// requests without appending them, and franz-go fails with a rejected batch every record then
// buffered for its partition (finishBatch: failAllRecords), sent or not. So no failed record
// reaches the log: the log holds exactly the records of the requests kfake accepted, each
// acknowledged and consumed once, and every other record sent counts failed.
func TestRunFailedNotLost(t *testing.T) {
	tgt, _, cluster := fakeClusterCtl(t, 1)
	var seen, failedReqs, rejected, accepted int
	cluster.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		seen++
		req := kr.(*kmsg.ProduceRequest)
		if seen < 30 || failedReqs >= 4 {
			if req.Acks != -1 { // the settling records are not the run's
				accepted += requestRecords(t, req)
			}
			return nil, nil, false // let the cluster handle it
		}
		failedReqs++
		rejected += requestRecords(t, req)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.InvalidRecord.Code // not retriable: the batch fails
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	s := smallSpec()
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 1
	s.ProducerProps.Set("acks", "1")
	s.ProducerProps.Set("retries", "0")
	res, err := Run(context.Background(), s, tgt, Options{RunID: "failing"})
	if err != nil {
		t.Fatal(err)
	}
	all := sumCounts(res.Counts, res.ExcludedCounts)
	t.Logf("all phases: %+v; %d produce requests rejected holding %d records, %d records accepted", all, failedReqs, rejected, accepted)
	if failedReqs == 0 || all.Failed == 0 {
		t.Fatalf("no failures injected: %+v", all)
	}
	if all.Acked != int64(accepted) || all.Failed != all.Sent-int64(accepted) || all.Failed < int64(rejected) || all.InFlightAtEnd != 0 {
		t.Errorf("sent %d: acked %d, failed %d, in flight %d; want acked = the %d records accepted, failed = the rest (at least the %d rejected)",
			all.Sent, all.Acked, all.Failed, all.InFlightAtEnd, accepted, rejected)
	}
	if all.Consumed != int64(accepted) || all.Lost != 0 || all.Unconsumed != 0 || all.Duplicated != 0 {
		t.Errorf("ledger: %+v; want the %d accepted records consumed once each, no failed one", all, accepted)
	}
	if len(res.Errors) != 1 || res.Errors[0].Source != "produce" || res.Errors[0].Count != all.Failed {
		t.Errorf("errors %+v, want the one produce error of the %d failed records", res.Errors, all.Failed)
	}
}

// requestRecords counts the records of a produce request.
func requestRecords(t *testing.T, req *kmsg.ProduceRequest) int {
	n := 0
	for _, rt := range req.Topics {
		for _, rp := range rt.Partitions {
			n += countRecords(t, rp.Records)
		}
	}
	return n
}

// sumCounts adds counts of several phases.
func sumCounts(cs ...Counts) Counts {
	var all Counts
	for _, c := range cs {
		all.Sent += c.Sent
		all.Acked += c.Acked
		all.Failed += c.Failed
		all.InFlightAtEnd += c.InFlightAtEnd
		all.Consumed += c.Consumed
		all.Lost += c.Lost
		all.Unconsumed += c.Unconsumed
		all.Duplicated += c.Duplicated
	}
	return all
}

// TestTimelinePhases: each second of the timeline is labelled with the phase it ran in; the
// second ending at the window's start is the warm-up's last, the one ending at its end the
// window's last. (They were one second off: the label was taken after the boundary moved on.)
func TestTimelinePhases(t *testing.T) {
	tgt, _ := fakeCluster(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	spec := smallSpec()
	spec.Warmup, spec.Duration = 2*time.Second, 3*time.Second
	res, err := Run(ctx, spec, tgt, Options{RunID: "phases", DrainTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for s := range res.Timeline.All() {
		got = append(got, fmt.Sprintf("%.0f:%s", s.T, s.Phase))
	}
	want := "1:warmup 2:warmup 3:measure 4:measure 5:measure"
	if len(got) < 5 || strings.Join(got[:5], " ") != want {
		t.Errorf("timeline %v, want it to begin %s", got, want)
	}
	for _, s := range got[min(5, len(got)):] {
		if !strings.HasSuffix(s, ":drain") {
			t.Errorf("timeline %v: after the window every second is the drain's", got)
		}
	}
}
