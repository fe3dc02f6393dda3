package report

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestSig(t *testing.T) {
	tests := []struct {
		v    float64
		n    int
		want string
	}{
		{0, 3, "0"},
		{15422.7, 3, "15,400"},
		{0.012345, 3, "0.0123"},
		{99.96, 3, "100"},
		{9.996, 3, "10.0"},
		{5, 3, "5.00"},
		{1234567, 3, "1,230,000"},
		{999, 3, "999"},
		{-1500, 2, "-1,500"},
		{0.5, 2, "0.50"},
		{math.NaN(), 3, "NaN"},
		{math.Inf(1), 3, "+Inf"},
	}
	for _, tt := range tests {
		if got := sig(tt.v, tt.n); got != tt.want {
			t.Errorf("sig(%v, %d) = %q, want %q", tt.v, tt.n, got, tt.want)
		}
	}
}

func TestFormatters(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"rate exact", fmtRate(7071.07), "7,071"},
		{"rate big", fmtRate(1.5e6), "1,500,000"},
		{"rate small", fmtRate(58), "58.0"},
		{"rate fraction", fmtRate(0.25), "0.250"},
		{"MB/s", fmtMBps(5e6), "5.00"},
		{"MB/s small", fmtMBps(1234), "0.00123"},
		{"ms trims", fmtMs(2.1), "2.1"},
		{"ms tiny", fmtMs(0.01), "0.01"},
		{"ms whole", fmtMs(95), "95"},
		{"ms large", fmtMs(2400), "2,400"},
		{"ms three digits", fmtMs(149.4), "149"},
		{"size bytes", fmtSize(100), "100 B"},
		{"size KB", fmtSize(1000), "1 KB"},
		{"size KB fraction", fmtSize(1500), "1.5 KB"},
		{"size KiB", fmtSize(1024), "1 KiB"},
		{"size KiB fraction", fmtSize(1536), "1.5 KiB"},
		{"size MB", fmtSize(1000000), "1 MB"},
		{"size MiB", fmtSize(1 << 20), "1 MiB"},
		{"size odd", fmtSize(1234), "1,234 B"},
		{"size exact KB first", fmtSize(1024000), "1024 KB"},
		{"compact k", compact(1500), "1.5k"},
		{"compact M", compact(2e6), "2M"},
		{"compact G", compact(3e9), "3G"},
		{"compact small", compact(0.25), "0.25"},
		{"cores", fmtCores(0.723), "0.72"},
		{"pct", fmtPct(0.361), "36%"},
		{"plural 1", plural(1, "broker"), "1 broker"},
		{"plural 3", plural(3, "broker"), "3 brokers"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

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
