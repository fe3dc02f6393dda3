package probe

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
)

func TestParsePromLines(t *testing.T) {
	type got struct {
		name, labels string
		v            float64
	}
	for _, c := range []struct {
		in   string
		want []got
		bad  bool
	}{
		{"a 1\n", []got{{"a", "{}", 1}}, false},
		{"# HELP a x\n# TYPE a counter\n\na_total 2.5E9\n", []got{{"a_total", "{}", 2.5e9}}, false},
		{`b{x="1",y="two"} -3 1700000000000`, []got{{"b", `{x="1", y="two"}`, -3}}, false},
		{`b{x="a\"b\\c\nd",} NaN`, []got{{"b", `{x="a\"b\\c\nd"}`, math.NaN()}}, false},
		{"c +Inf\nd -Inf\n", []got{{"c", "{}", math.Inf(1)}, {"d", "{}", math.Inf(-1)}}, false},
		{"ns:rule_name{} 7\n", []got{{"ns:rule_name", "{}", 7}}, false},
		{"  indented 1\n", []got{{"indented", "{}", 1}}, false},
		// Prometheus's grammar, which the hand-written reader differed from: a backslash before
		// any other letter is kept as it is, the value may follow the '}' directly, and a line
		// ends at '\n' only (the exporter never sends "\r\n").
		{`a{x="\q"} 2`, []got{{"a", `{x="\\q"}`, 2}}, false},
		{`a{x="1"}2`, []got{{"a", `{x="1"}`, 2}}, false},
		{"c +Inf\r\nd -Inf\n", nil, true},
		{"a\n", nil, true},
		{"a one\n", nil, true},
		{"a 1 2 3\n", nil, true},
		{"a 1 soon\n", nil, true},
		{`a{x="1" 2`, nil, true},
		{`a{x="1} 2`, nil, true},
		{`a{x=1} 2`, nil, true},
		{`a{1x="v"} 2`, nil, true},
		{"9lives 1\n", nil, true},
		{"{x=\"1\"} 1\n", nil, true},
		{"ok 1\nbad line here\n", nil, true},
	} {
		var gs []got
		err := parseProm([]byte(c.in), func(n, _ []byte, v float64, ls func() labels.Labels) {
			l := ls()
			gs = append(gs, got{string(n), l.DropReserved(func(n string) bool { return n == model.MetricNameLabel }).String(), v})
			if !unlabelled(n, n) {
				t.Errorf("%q: a name alone has labels", c.in)
			}
		})
		if c.bad {
			if err == nil || !errors.Is(err, ErrParse) {
				t.Errorf("%q: error %v, want ErrParse", c.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if len(gs) != len(c.want) {
			t.Errorf("%q: got %v, want %v", c.in, gs, c.want)
			continue
		}
		for i := range gs {
			w := c.want[i]
			same := gs[i].v == w.v || (math.IsNaN(gs[i].v) && math.IsNaN(w.v))
			if gs[i].name != w.name || gs[i].labels != w.labels || !same {
				t.Errorf("%q: sample %d = %+v, want %+v", c.in, i, gs[i], w)
			}
		}
	}
}

// TestLabelValues: escaped label values come back unescaped.
func TestLabelValues(t *testing.T) {
	in := `m{request="Produce",quantile="0.99",odd="say \"hi\"\\n\n",} 1` + "\n"
	err := parseProm([]byte(in), func(_, _ []byte, _ float64, ls func() labels.Labels) {
		l := ls()
		for key, want := range map[string]string{"request": "Produce", "quantile": "0.99", "odd": "say \"hi\"\\n\n"} {
			if got := l.Get(key); got != want {
				t.Errorf("label %s = %q, want %q", key, got, want)
			}
		}
		if l.Has("topic") {
			t.Error("found a label that is not there")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadBrokerGolden reads a real scrape of a Kafka 4.1 broker's exporter.
func TestReadBrokerGolden(t *testing.T) {
	r, err := readBroker(readTestdata(t, "scrape-a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Spot checks against the scrape's text.
	for m, want := range map[metric]float64{
		mBytesIn:            211368, // the broker-wide line, not the per-topic ones
		mIdleCount:          8.8160431181e10,
		mNetIdle:            0.9910321909285459,
		mWireIn:             8241 + 1144 + 24707 + 23584 + 229756 + 660,
		mGC:                 1.024,
		mTimeBase + 0*3 + 1: 535, // Produce p99
		mTimeBase + 2*3 + 2: 3777,
		mLeaders:            18,
		mCPUTime:            1.057e10,
		mReqQueue:           0,
		mActiveController:   0,
		mFailedProduce:      0,
		mTimeBase + 1*3 + 0: 14, // FetchConsumer p50
		mReplIn:             414651,
		mReplOut:            422736,
		mBytesOut:           210925,
		mHeapMax:            1.073741824e9,
		mProduceReqs:        106,
		mURP:                0,
		mExpands:            0,
		mShrinks:            0,
		mFetchReqs:          3846,
		mMsgsIn:             1947,
		mPartitions:         56,
		mOfflineReplicas:    0,
		mUnderMinISR:        0,
		mFailedISR:          0,
		mRespQueue:          0,
		mBytesRejected:      0,
		mFailedFetch:        0,
		mCPULoad:            0.07109245834923057,
		mSystemLoad:         0,
		mHeapUsed:           2.34290608e8,
		mWireOut:            12376 + 4383 + 21232 + 440206 + 228741 + 3203,
		mTimeBase + 0*3 + 0: 16,
		mTimeBase + 0*3 + 2: 535,
		mTimeBase + 1*3 + 1: 461,
		mTimeBase + 1*3 + 2: 461,
		mTimeBase + 2*3 + 0: 13,
		mTimeBase + 2*3 + 1: 2165.329999999984,
	} {
		if got := float64(r.v[m]); math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("metric %d = %v, want %v", m, got, want)
		}
	}
	for m, v := range r.v {
		if !v.OK() {
			t.Errorf("metric %d missing from a real scrape", m)
		}
	}
}

func TestReadBrokerNotKafka(t *testing.T) {
	_, err := readBroker([]byte("# node exporter\nnode_cpu_seconds_total{cpu=\"0\"} 5\n"))
	if !errors.Is(err, ErrMetrics) {
		t.Errorf("a scrape without Kafka metrics: %v, want ErrMetrics", err)
	}
	_, err = readBroker([]byte("broken{ 1\n"))
	if !errors.Is(err, ErrParse) {
		t.Errorf("bad text: %v, want ErrParse", err)
	}
}

// TestDiffBrokerScrapes diffs two real scrapes of one broker as if taken 1.5 s apart.
func TestDiffBrokerScrapes(t *testing.T) {
	a, err := readBroker(readTestdata(t, "scrape-a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := readBroker(readTestdata(t, "scrape-b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	a.at = time.Unix(100, 0)
	b.at = a.at.Add(1500 * time.Millisecond)
	s := diffBroker(a, b, 2)
	if want := Num((229153 - 211368) / 1.5); math.Abs(float64(s.BytesIn-want)) > 1e-6 {
		t.Errorf("bytes in %v B/s, want %v", s.BytesIn, want)
	}
	// Idle ns grew by 3.717e9 in 1.5 s across two pools: 1.24, clamped to 1.
	if s.HandlerIdle != 1 {
		t.Errorf("handler idle %v, want 1 (clamped)", s.HandlerIdle)
	}
	if want := Num((1.102e10 - 1.057e10) / 1e9 / 1.5); math.Abs(float64(s.JVMCPU-want)) > 1e-9 {
		t.Errorf("JVM CPU %v cores, want %v", s.JVMCPU, want)
	}
	if s.ProduceMs.P99 != Num(float64(b.v[mTimeBase+1])) {
		t.Errorf("produce p99 %v, want the second scrape's gauge", s.ProduceMs.P99)
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "broker-sample.golden.json", append(got, '\n'))
}

func TestRateAndIdle(t *testing.T) {
	cases := []struct {
		name        string
		prev, cur   Num
		dt          float64
		pools       int
		rate, idle  Num
		rateMissing bool
	}{
		{"steady", 1e9, 3e9, 2, 1, 1e9, 1, false},
		{"combined node idle reads 2.0 per second", 0, 2e9, 1, 2, 2e9, 1, false},
		{"combined node half busy", 0, 1e9, 1, 2, 1e9, 0.5, false},
		{"broker-only node 30% idle", 0, 0.3e9, 1, 1, 0.3e9, 0.3, false},
		{"jitter above 1 is clamped", 0, 2.2e9, 1, 2, 2.2e9, 1, false},
		{"counter reset by a restart", 5e9, 1e9, 1, 1, Missing, Missing, true},
		{"missing reading", Missing, 1e9, 1, 1, Missing, Missing, true},
		{"no time passed", 1, 2, 0, 1, Missing, Missing, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rate(c.prev, c.cur, c.dt)
			if c.rateMissing != !r.OK() || (r.OK() && r != c.rate) {
				t.Errorf("rate = %v, want %v", r, c.rate)
			}
			i := handlerIdle(c.prev, c.cur, c.dt, c.pools)
			if i.OK() != c.idle.OK() || (i.OK() && math.Abs(float64(i-c.idle)) > 1e-12) {
				t.Errorf("idle = %v, want %v", i, c.idle)
			}
		})
	}
}

func TestNumJSON(t *testing.T) {
	in := struct {
		A, B Num
	}{1.5, Missing}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"A":1.5,"B":null}` {
		t.Fatalf("marshal = %s %v", b, err)
	}
	var out struct{ A, B Num }
	if err := json.Unmarshal(b, &out); err != nil || out.A != 1.5 || out.B.OK() {
		t.Errorf("round trip = %+v %v", out, err)
	}
	if Missing.Or(7) != 7 || Num(2).Or(7) != 2 {
		t.Error("Or")
	}
}
