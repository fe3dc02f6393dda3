package units

import (
	"math"
	"testing"
	"time"
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
		if got := Sig(tt.v, tt.n); got != tt.want {
			t.Errorf("Sig(%v, %d) = %q, want %q", tt.v, tt.n, got, tt.want)
		}
	}
}

func TestFormatters(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"rate exact", Count(7071.07), "7,071"},
		{"rate big", Count(1.5e6), "1,500,000"},
		{"rate small", Count(58), "58.0"},
		{"int small", Int(30), "30"},
		{"int big", Int(10000), "10,000"},
		{"rate fraction", Count(0.25), "0.250"},
		{"MB/s", MBps(5e6), "5.00"},
		{"MB/s small", MBps(1234), "0.00123"},
		{"ms trims", Ms(2.1), "2.1"},
		{"ms tiny", Ms(0.01), "0.01"},
		{"ms whole", Ms(95), "95"},
		{"ms large", Ms(2400), "2,400"},
		{"ms three digits", Ms(149.4), "149"},
		{"short whole", Short(41), "41"},
		{"short trims", Short(3.60), "3.6"},
		{"size bytes", Size(100), "100 B"},
		{"size KB", Size(1000), "1 KB"},
		{"size KB fraction", Size(1500), "1.5 KB"},
		{"size KiB", Size(1024), "1 KiB"},
		{"size KiB fraction", Size(1536), "1.5 KiB"},
		{"size MB", Size(1000000), "1 MB"},
		{"size MiB", Size(1 << 20), "1 MiB"},
		{"size odd", Size(1234), "1,234 B"},
		{"size exact KB first", Size(1024000), "1024 KB"},
		{"compact k", Compact(1500), "1.5k"},
		{"compact M", Compact(2e6), "2M"},
		{"compact G", Compact(3e9), "3G"},
		{"compact small", Compact(0.25), "0.25"},
		{"cores", Cores(0.723), "0.72"},
		{"pct", Pct(0.361), "36%"},
		{"plural 1", Plural(1, "broker"), "1 broker"},
		{"plural 3", Plural(3, "broker"), "3 brokers"},
		{"change up", Change(0.1), "+10.0%"},
		{"change down", Change(-0.0234), "-2.3%"},
		{"change none", Change(0), "0.0%"},
		{"change rounds to none", Change(-0.0001), "0.0%"},
		{"p", P(0.2544), "0.25"},
		{"p small", P(0.0079), "0.0079"},
		{"p tiny", P(0.00001), "<0.001"},
		{"p one", P(1), "1.0"},
		{"duration zero", Duration(0), "0 s"},
		{"duration seconds", Duration(44600 * time.Millisecond), "45 s"},
		{"duration minutes", Duration(4*time.Minute + 38*time.Second), "4 min 38 s"},
		{"duration whole minutes", Duration(12 * time.Minute), "12 min"},
		{"duration hours", Duration(65*time.Minute + 29*time.Second), "1 h 5 min"},
		{"duration hours round up", Duration(2*time.Hour - 20*time.Second), "2 h"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
