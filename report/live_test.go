package report

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/internal/offline"
	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
)

// midSearch is fullSearch as it stood while trial 13 ran: 100 B and 1 KB found, 10 KB under
// way after three ok trials, 100 KB not begun, no recommendation yet.
func midSearch() Live {
	sf := fullSearch()
	sf.Points, sf.Trials, sf.Recommendation = sf.Points[:2], sf.Trials[:12], nil
	var secs []loadgen.Second
	for i := 1; i <= 5; i++ {
		phase := "warmup"
		if i > 3 {
			phase = "measure"
		}
		secs = append(secs, loadgen.Second{T: float64(i), Phase: phase, TargetMsgsPerSec: 600, ProducedMsgsPerSec: 590 - float64(i),
			ConsumedMsgsPerSec: 585, Publish: loadgen.SecondLatency{P50: 3 + float64(i), P99: 20 * float64(i), Count: 590},
			EndToEnd: loadgen.SecondLatency{P50: 5, P99: 30 * float64(i), Count: 585}})
	}
	return Live{Search: sf, Seconds: secs, Total: 30,
		Trial: &limit.Progress{Trial: 13, About: 17, Size: 10000, Rate: 600, Phase: results.PhaseBisect}}
}

func TestLiveGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		l    Live
	}{{"live-mid", midSearch()}, {"live-start", Live{}}} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteLivePage(&b, c.l); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".html", b.Bytes())
		})
	}
}

// script is the live page's one script element.
var script = regexp.MustCompile(`(?s)<script>.*?</script>`)

func TestLiveSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLivePage(&b, midSearch()); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	scripts := script.FindAllString(html, -1)
	if len(scripts) != 1 {
		t.Fatalf("%d script elements, want the one inline poller", len(scripts))
	}
	if bad := externalRefs(script.ReplaceAllString(html, "")); len(bad) != 0 {
		t.Errorf("the live page refers outside itself: %q", bad)
	}
	if urls := offline.URLs(scripts[0]); len(urls) != 0 || !strings.Contains(scripts[0], `fetch("live.json"`) {
		t.Errorf("the script should fetch live.json, relative to the page, and nothing else: %q", scripts[0])
	}
}

func TestLiveCharts(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLiveBody(&b, midSearch()); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`aria-label="this trial's rate"`, `aria-label="this trial's latency"`,
		`aria-label="boundary in messages per second"`, `data-seconds="5"`,
		"Trial 13 of about 17: 10 KB messages at 600 msgs/s (bisect), measure, second 5 of 30."} {
		if !strings.Contains(html, want) {
			t.Errorf("the live body lacks %q", want)
		}
	}
	if n := strings.Count(html, "<svg"); n != 4 { // rate, latency, the two boundary charts
		t.Errorf("%d charts, want 4", n)
	}
	if n := strings.Count(html, `<tr class="searching">`); n != 1 {
		t.Errorf("%d sizes marked searching, want 1 (10 KB)", n)
	}
	if n := strings.Count(html, "<tr class=\"ok") + strings.Count(html, "<tr class=\"overloaded") + strings.Count(html, "<tr class=\"invalid") + strings.Count(html, "<tr class=\"client-bound"); n < 12 {
		t.Errorf("%d trial rows, want at least the 12 stored", n)
	}
}

func TestLiveStartsEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLiveBody(&b, Live{}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"Starting: no trial has begun yet.", "No second measured yet.", "No boundary point yet.", "No trial recorded."} {
		if !strings.Contains(html, want) {
			t.Errorf("the empty live body lacks %q", want)
		}
	}
	if strings.Contains(html, "<svg") {
		t.Error("an empty live body draws a chart")
	}
}

// BenchmarkWriteLiveBody is what the live page costs plimsoll each second a page polls while a
// trial runs: the whole body drawn again, with 30 seconds of the running trial.
func BenchmarkWriteLiveBody(b *testing.B) {
	l := midSearch()
	for len(l.Seconds) < 30 {
		s := l.Seconds[len(l.Seconds)-1]
		s.T++
		l.Seconds = append(l.Seconds, s)
	}
	for b.Loop() {
		if err := WriteLiveBody(io.Discard, l); err != nil {
			b.Fatal(err)
		}
	}
}
