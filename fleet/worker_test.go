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

// TestWorkerProcess: each second's Process carries the meter's figures and this process's cores;
// without a meter (no /proc) the figures are missing, the cores still known.
func TestWorkerProcess(t *testing.T) {
	miss := probe.ProcessUse{CPU: probe.Missing, RunQueueWait: probe.Missing}
	for _, tc := range []struct {
		name      string
		meter     processMeter
		cpu, wait float64 // NaN: missing
	}{
		{"measured", &fakeMeter{uses: []probe.ProcessUse{{CPU: 1.25, RunQueueWait: 0.5}}}, 1.25, 0.5},
		{"the meter's first reading", &fakeMeter{uses: []probe.ProcessUse{miss}}, nan, nan},
		{"no meter", nil, nan, nan},
	} {
		w := &Worker{meter: tc.meter}
		p := w.process()
		if !sameNum(p.CPU, tc.cpu) || !sameNum(p.RunQueueWait, tc.wait) || p.GOMAXPROCS != runtime.GOMAXPROCS(0) || p.NumCPU != runtime.NumCPU() {
			t.Errorf("%s: %+v, want cpu %v, wait %v, this process's cores", tc.name, *p, tc.cpu, tc.wait)
		}
	}
}
