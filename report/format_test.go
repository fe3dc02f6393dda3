package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"one two three", 7, []string{"one two", "three"}},
		{"averyveryverylongword x", 5, []string{"averyveryverylongword", "x"}},
		{"≥ 40,000 msgs/s", 8, []string{"≥ 40,000", "msgs/s"}}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := wrap(tt.in, tt.width); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

// tickLabels joins the labels of the labelled ticks.
func tickLabels(ts []plot.Tick) string {
	var s []string
	for _, t := range ts {
		if t.Label != "" {
			s = append(s, t.Label)
		}
	}
	return strings.Join(s, ",")
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name   string
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{"sizes, wide: powers of ten", sizeTicks{}, 62.5, 160000, "100 B,1 KB,10 KB,100 KB"},
		{"sizes, under three decades", sizeTicks{}, 62.5, 16000, "100 B,200 B,500 B,1 KB,2 KB,5 KB,10 KB"},
		{"sizes, one size: every tick", sizeTicks{}, 640, 1638.4, "700 B,800 B,900 B,1 KB"},
		{"sizes, no range", sizeTicks{}, 1, 1, ""},
		{"log rates", logTicks{}, 29, 160000, "100,1k,10k,100k"},
		{"log rates, narrow", logTicks{}, 0.5, 40, "0.5,1,2,5,10,20"},
		{"linear, short", compactTicks{}, 0, 2.7, "0,0.5,1,1.5,2,2.5"},
		{"linear, thousands", compactTicks{}, 0, 9600, "0,2k,4k,6k,8k"},
		{"linear, no range", compactTicks{}, 3, 3, ""},
	}
	for _, tt := range tests {
		if got := tickLabels(tt.ticker.Ticks(tt.lo, tt.hi)); got != tt.want {
			t.Errorf("%s: Ticks(%v, %v) = %s, want %s", tt.name, tt.lo, tt.hi, got, tt.want)
		}
	}
}
