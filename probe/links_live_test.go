package probe

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// RecordLinksEnv names the variable that makes TestLinkShapersLive write its readings to
// testdata/links-flood.json, the recording TestLinkReplay replays.
const RecordLinksEnv = "PLIMSOLL_RECORD_LINKS"

// TestLinkShapersLive floods a real tbf-shaped veth pair both ways and reads its shapers as the
// probe does: bytes near the shaped rate, a backlog and drops in both directions. Root only.
func TestLinkShapersLive(t *testing.T) {
	const rate = 250000 // 2 Mbit/s: a flood fills it at once
	l := makeTestLink(t, "live", 1, rate)
	links := map[int32]Link{1: l.Link}
	r, err := openLinks(links)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	ctx, cancel := context.WithCancel(context.Background())
	wg := l.flood(t, ctx)
	readings := []*linkReading{r.read(time.Now())}
	tick := time.NewTicker(500 * time.Millisecond)
	for range 6 {
		<-tick.C
		readings = append(readings, r.read(time.Now()))
	}
	tick.Stop()
	cancel()
	wg.Wait()
	var seen struct{ outDrops, inDrops, outBacklog, inBacklog float64 }
	for i := 1; i < len(readings); i++ {
		s := diffLinks(links, readings[i-1], readings[i])[1]
		for _, sh := range []ShaperSample{s.Out, s.In} {
			if sh.Kind != "tbf" || sh.Rate != rate {
				t.Fatalf("%s: kind %q rate %v, want tbf at %d B/s", sh.Iface, sh.Kind, sh.Rate, rate)
			}
			if b := sh.Bytes.Or(0); b > 2*rate {
				t.Errorf("%s sent %v B/s through a %d B/s shaper", sh.Iface, b, rate)
			}
		}
		seen.outDrops += s.Out.Drops.Or(0)
		seen.inDrops += s.In.Drops.Or(0)
		seen.outBacklog = max(seen.outBacklog, s.Out.Backlog.Or(0))
		seen.inBacklog = max(seen.inBacklog, s.In.Backlog.Or(0))
	}
	if seen.outDrops == 0 || seen.inDrops == 0 || seen.outBacklog == 0 || seen.inBacklog == 0 {
		t.Errorf("flooded both ways, the shapers show %+v: want drops and a backlog each way", seen)
	}
	if os.Getenv(RecordLinksEnv) != "" {
		recordLinks(t, l.Link, readings)
	}
}

// recordLinks writes the readings of the test link (its two qdiscs only) for TestLinkReplay.
func recordLinks(t *testing.T, l Link, readings []*linkReading) {
	rec := struct {
		Link     Link          `json:"link"`
		Readings []linkReading `json:"readings"`
	}{Link: l}
	for _, r := range readings {
		c := *r
		c.Host = nil
		if q := findQdisc(r.Host, l.HostIface); q != nil {
			c.Host = []qdiscReading{*q}
		}
		rec.Readings = append(rec.Readings, c)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/links-flood.json", append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkProbeSecondLive is BenchmarkProbeSecond's work plus what emulated NICs add to a
// second: one qdisc dump of the probe's namespace and of each of three broker namespaces,
// diffed into links and host qdiscs. Root only (it makes three shaped links).
func BenchmarkProbeSecondLive(b *testing.B) {
	links, r := benchLinks(b)
	second := probeSecond(b)
	prev := r.read(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		second()
		cur := r.read(time.Now())
		_ = diffLinks(links, prev, cur)
		_ = diffHostQdiscs(links, prev, cur)
		prev = cur
	}
}

// BenchmarkLinksReadLive is the links' part of BenchmarkProbeSecondLive alone.
func BenchmarkLinksReadLive(b *testing.B) {
	links, r := benchLinks(b)
	prev := r.read(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		cur := r.read(time.Now())
		_ = diffLinks(links, prev, cur)
		_ = diffHostQdiscs(links, prev, cur)
		prev = cur
	}
}

// benchLinks makes three shaped links, as a 3-broker cluster with emulated NICs has, and opens
// them; both are removed when the benchmark ends.
func benchLinks(b *testing.B) (map[int32]Link, *linkReader) {
	links := map[int32]Link{}
	for i := int32(1); i <= 3; i++ {
		links[i] = makeTestLink(b, "bench"+string('0'+rune(i)), int(i), 1e6).Link
	}
	r, err := openLinks(links)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.close)
	return links, r
}
