package probe

import (
	"math"
	"os"
	"testing"
	"time"
)

// TestProcessMeter meters pid 4242 of the two /proc snapshots TestHostReader reads (a busy
// loop, a second apart): the same CPU and run-queue wait as the probe's sample of it.
func TestProcessMeter(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	wait := (185070057 - 135627222) / 1e9
	tests := []struct {
		name     string
		pid      int
		early    time.Duration // when > 0, a Read this long after the baseline, before the second
		dt       time.Duration
		cpu      float64 // NaN: missing
		runqWait float64
	}{
		{"busy loop", 4242, 0, time.Second, 1.0, wait},
		{"two seconds", 4242, 0, 2 * time.Second, 0.5, wait / 2},
		{"no time between", 4242, 0, 0, math.NaN(), math.NaN()},
		{"a tenth of a second", 4242, 0, 100 * time.Millisecond, math.NaN(), math.NaN()},
		{"the baseline kept over a short Read", 4242, 10 * time.Microsecond, time.Second, 1.0, wait},
		{"no such process", 999999, 0, time.Second, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewProcessMeter("testdata/proc-a", tt.pid)
			if err != nil {
				t.Fatal(err)
			}
			if u := m.Read(t0); u.CPU.OK() || u.RunQueueWait.OK() {
				t.Fatalf("first Read = %+v, want missing figures (a baseline only)", u)
			}
			b, err := NewProcessMeter("testdata/proc-b", tt.pid)
			if err != nil {
				t.Fatal(err)
			}
			m.fs, m.root = b.fs, b.root
			if tt.early > 0 {
				if u := m.Read(t0.Add(tt.early)); u.CPU.OK() || u.RunQueueWait.OK() {
					t.Fatalf("a Read %s after the baseline = %+v, want missing figures", tt.early, u)
				}
			}
			u := m.Read(t0.Add(tt.dt))
			nearOrMissing(t, "CPU", u.CPU, tt.cpu)
			nearOrMissing(t, "run-queue wait", u.RunQueueWait, tt.runqWait)
		})
	}
}

// TestProcessMeterSelf meters the test's own process twice: its figures are measured, and not
// negative.
func TestProcessMeterSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	m, err := NewProcessMeter("/proc", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	m.Read(t0)
	for x := 0; time.Since(t0) < minMeterInterval+50*time.Millisecond; x++ {
		_ = x * x
	}
	u := m.Read(time.Now())
	if !u.CPU.OK() || u.CPU < 0 {
		t.Errorf("CPU = %v, want a measured value", u.CPU)
	}
	if u.RunQueueWait.OK() && u.RunQueueWait < 0 {
		t.Errorf("run-queue wait = %v, want at least 0", u.RunQueueWait)
	}
}

// nearOrMissing checks a figure against want, NaN meaning it must be missing.
func nearOrMissing(t *testing.T, what string, got Num, want float64) {
	t.Helper()
	if math.IsNaN(want) {
		if got.OK() {
			t.Errorf("%s = %v, want missing", what, got)
		}
		return
	}
	if !got.OK() || math.Abs(float64(got)-want) > 1e-3 {
		t.Errorf("%s = %v, want %.4f", what, got, want)
	}
}
