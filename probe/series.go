package probe

import (
	"slices"
	"time"

	"github.com/prometheus/procfs/sysfs"
)

// Sample is one interval's observations, (Start, Time]. Each part is nil when it was not
// observed at all (no /proc, no metrics endpoints); a source that failed this interval has its
// Err set and its values missing.
type Sample struct {
	Start   time.Time               `json:"start"`
	Time    time.Time               `json:"time"`
	Host    *HostSample             `json:"host,omitempty"`
	Brokers map[int32]*BrokerSample `json:"brokers,omitempty"`
	Meta    *MetaSample             `json:"meta,omitempty"`
}

// Series is a probe's record of a run: the settings the figures depend on and every sample.
type Series struct {
	Interval   float64 `json:"interval_s"`
	Cores      int     `json:"cores"`      // of the client host
	GOMAXPROCS int     `json:"gomaxprocs"` // plimsoll's Go scheduler threads
	Local      bool    `json:"local"`      // brokers run on the client host
	// HandlerPools is the divisor applied to each broker's request-handler idle meter.
	HandlerPools   map[int32]int `json:"handler_pools,omitempty"`
	NICBytesPerSec float64       `json:"nic_bytes_per_sec,omitempty"`
	// NICByBroker is a broker's own link capacity where it differs from NICBytesPerSec.
	NICByBroker          map[int32]float64 `json:"nic_by_broker,omitempty"`
	DiskWriteBytesPerSec float64           `json:"disk_write_bytes_per_sec,omitempty"`
	// NICSpeeds are the client host's interfaces that report a link speed, bytes/s.
	NICSpeeds map[string]float64 `json:"nic_speeds,omitempty"`
	Notes     []string           `json:"notes,omitempty"`
	Samples   []Sample           `json:"samples"`
}

// windowSlack tolerates ticker jitter at the window's edges.
const windowSlack = 50 * time.Millisecond

// Window returns the samples whose whole interval lies within [from, to]: the measured window
// with the warm-up (and anything after the run) left out. A zero from or to leaves that end open.
func (s *Series) Window(from, to time.Time) *Series {
	w := *s
	w.Samples = nil
	for _, x := range s.Samples {
		if !from.IsZero() && x.Start.Before(from.Add(-windowSlack)) {
			continue
		}
		if !to.IsZero() && x.Time.After(to.Add(windowSlack)) {
			continue
		}
		w.Samples = append(w.Samples, x)
	}
	return &w
}

// BrokerIDs lists every broker seen in the series, from metrics or metadata.
func (s *Series) BrokerIDs() []int32 {
	seen := map[int32]bool{}
	for id := range s.HandlerPools {
		seen[id] = true
	}
	for _, x := range s.Samples {
		for id := range x.Brokers {
			seen[id] = true
		}
		if x.Host != nil {
			for id := range x.Host.Brokers {
				seen[id] = true
			}
		}
		if x.Meta != nil {
			for _, id := range x.Meta.Brokers {
				seen[id] = true
			}
		}
	}
	ids := make([]int32, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// nicSpeeds reads the link speed (Mbit/s, /sys/class/net/IF/speed) of each interface that
// reports one; virtual interfaces report -1 or nothing and are left out.
func nicSpeeds(sys string) map[string]float64 {
	fs, err := sysfs.NewFS(sys)
	if err != nil {
		return nil
	}
	names, err := fs.NetClassDevices()
	if err != nil {
		return nil
	}
	var out map[string]float64
	for _, name := range names {
		nc, err := fs.NetClassByIface(name)
		if err != nil || nc.Speed == nil || *nc.Speed <= 0 {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[name] = float64(*nc.Speed) * 1e6 / 8
	}
	return out
}
