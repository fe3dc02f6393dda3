package model

import (
	"errors"
	"math"
	"testing"
)

// demoObservations are the trials of a limit search on 16 Mbit/s links (make demo, Kafka 4.1.0,
// rf 3, one group, acks=all): each rate over the model's ceiling (18,185, 1,975 and 200 msgs/s
// at 100 B, 1 KB and 10 KB) and the trial's p99 publish latency.
var demoObservations = []LatencyObservation{
	{Size: 100, Load: 18185.0 / 18185, P99Ms: 10060, Overflowing: true},
	{Size: 100, Load: 14548.0 / 18185, P99Ms: 4813, Overflowing: true},
	{Size: 100, Load: 11639.0 / 18185, P99Ms: 162},
	{Size: 100, Load: 13012.0 / 18185, P99Ms: 264},
	{Size: 100, Load: 13759.0 / 18185, P99Ms: 995},
	{Size: 1000, Load: 1975.0 / 1975, P99Ms: 8090, Overflowing: true},
	{Size: 1000, Load: 1580.0 / 1975, P99Ms: 1983},
	{Size: 1000, Load: 1264.0 / 1975, P99Ms: 78},
	{Size: 1000, Load: 1413.0 / 1975, P99Ms: 80},
	{Size: 1000, Load: 1494.0 / 1975, P99Ms: 1076},
}

func TestCalibrate(t *testing.T) {
	cal, err := Calibrate(demoObservations, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Crossings) != 2 {
		t.Fatalf("crossings %+v, want one for each size", cal.Crossings)
	}
	c100, c1k := cal.Crossings[0], cal.Crossings[1]
	// 100 B: 995 ms at 0.7566, 4,813 ms at 0.8000: log p99 reaches 1,000 ms just above 0.7566.
	if c100.Below != 13759.0/18185 || c100.Above != 14548.0/18185 || math.Abs(c100.Load-0.7567) > 1e-4 {
		t.Errorf("100 B crossing %+v", c100)
	}
	// 1 KB: 80 ms at 0.7154, 1,076 ms at 0.7565.
	if c1k.Below != 1413.0/1975 || c1k.Above != 1494.0/1975 || math.Abs(c1k.Load-0.7553) > 1e-4 {
		t.Errorf("1 KB crossing %+v", c1k)
	}
	if want := math.Sqrt(c100.Load * c1k.Load); math.Abs(cal.Load-want) > 1e-12 {
		t.Errorf("calibrated load %v, want the geometric mean %v", cal.Load, want)
	}
	if got := cal.SLORate(200); math.Abs(got-200*cal.Load) > 1e-9 {
		t.Errorf("SLORate(200) = %v", got)
	}
}

func TestCalibrateNeedsBothSides(t *testing.T) {
	onlyBelow := []LatencyObservation{{Size: 100, Load: 0.5, P99Ms: 20}, {Size: 100, Load: 0.6, P99Ms: 40}}
	if _, err := Calibrate(onlyBelow, 1000); !errors.Is(err, ErrNoCrossing) {
		t.Errorf("no trial beyond the SLO: %v", err)
	}
	// A miss below every meet is no crossing: the meets must lie under the miss.
	inverted := []LatencyObservation{{Size: 100, Load: 0.5, P99Ms: 2000}, {Size: 100, Load: 0.6, P99Ms: 40}}
	if _, err := Calibrate(inverted, 1000); !errors.Is(err, ErrNoCrossing) {
		t.Errorf("a miss below the meets: %v", err)
	}
	if _, err := Calibrate(demoObservations, 0); !errors.Is(err, ErrInput) {
		t.Errorf("SLO 0: %v", err)
	}
}
