package fleet

import (
	"runtime"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

// fakeMeter hands out its uses in turn.
type fakeMeter struct{ uses []probe.ProcessUse }

func (m *fakeMeter) Read(time.Time) probe.ProcessUse {
	u := m.uses[0]
	m.uses = m.uses[1:]
	return u
}

// fakeSched hands out its histograms in turn.
type fakeSched struct{ hs []*probe.SchedHist }

func (m *fakeSched) Read() *probe.SchedHist {
	h := m.hs[0]
	m.hs = m.hs[1:]
	return h
}

// TestWorkerProcess: each second's Process carries the meters' figures and this process's
// cores; without a meter (no /proc) the figures are missing, the cores still known.
func TestWorkerProcess(t *testing.T) {
	miss := probe.ProcessUse{CPU: probe.Missing, RunQueueWait: probe.Missing}
	lat := &probe.SchedHist{Buckets: []probe.SchedBucket{{Lo: 0, Hi: 1e-6, N: 90}, {Lo: 0.01, Hi: 0.05, N: 10}}}
	for _, tc := range []struct {
		name      string
		meter     processMeter
		sched     schedMeter
		cpu, wait float64 // NaN: missing
		lat       *probe.SchedHist
	}{
		{"measured", &fakeMeter{uses: []probe.ProcessUse{{CPU: 1.25, RunQueueWait: 0.5}}}, &fakeSched{hs: []*probe.SchedHist{lat}}, 1.25, 0.5, lat},
		{"the meters' first reading", &fakeMeter{uses: []probe.ProcessUse{miss}}, &fakeSched{hs: []*probe.SchedHist{nil}}, nan, nan, nil},
		{"no /proc, the scheduler measured", nil, &fakeSched{hs: []*probe.SchedHist{lat}}, nan, nan, lat},
		{"no meters", nil, nil, nan, nan, nil},
	} {
		w := &Worker{meter: tc.meter, sched: tc.sched}
		p := w.process()
		if !sameNum(p.CPU, tc.cpu) || !sameNum(p.RunQueueWait, tc.wait) || p.SchedLatency != tc.lat || p.GOMAXPROCS != runtime.GOMAXPROCS(0) || p.NumCPU != runtime.NumCPU() {
			t.Errorf("%s: %+v, want cpu %v, wait %v, latencies %v, this process's cores", tc.name, *p, tc.cpu, tc.wait, tc.lat)
		}
	}
}
