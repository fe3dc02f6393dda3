package probe

import (
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/internal/spill"
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
//
// A series holds its samples in memory (Samples), or, when its probe spills (Config.SpillDir),
// only the latest few: the earlier ones are in a spill file, read back for each pass. Read the
// samples through All and Len, which see both; Samples alone is only the part in memory.
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
	// Samples are the samples held in memory: all of them, or those after the spilled ones.
	Samples []Sample `json:"samples"`

	spilled
}

// spilled is the part of a series in a spill file: its bytes [start, size), n samples, of which
// a Window keeps those within its bounds (counted in kept).
type spilled struct {
	file        *spill.File[Sample]
	start, size int64
	n           int
	bounds      bounds
	kept        int
}

// All yields every sample of the series in time order: the spilled ones read back from their
// file, then those in memory. A spill file that cannot be read back ends the sequence early;
// Err says so.
func (s *Series) All() iter.Seq[Sample] {
	return func(yield func(Sample) bool) {
		if s.file != nil {
			for x := range s.file.Read(s.start, s.size) {
				if s.bounds.keep(x) && !yield(x) {
					return
				}
			}
		}
		for _, x := range s.Samples {
			if !yield(x) {
				return
			}
		}
	}
}

// Len is the number of samples All yields.
func (s *Series) Len() int {
	if s.file == nil {
		return len(s.Samples)
	}
	if s.bounds.set() {
		return s.kept + len(s.Samples)
	}
	return s.n + len(s.Samples)
}

// Spilled reports whether some of the samples are in a spill file rather than in memory.
func (s *Series) Spilled() bool { return s.file != nil }

// Err is the first error reading the spilled samples back (nil for a series in memory): a
// figure drawn from the series after one is drawn from part of it.
func (s *Series) Err() error {
	if s == nil || s.file == nil {
		return nil
	}
	return s.file.Err()
}

// Close releases the spill file, if any; the series, and every Window of it, yields only the
// samples in memory afterwards. Nil-safe; closing twice is harmless.
func (s *Series) Close() error {
	if s == nil || s.file == nil {
		return nil
	}
	return s.file.Close()
}

// windowSlack tolerates ticker jitter at the window's edges.
const windowSlack = 50 * time.Millisecond

// bounds is a Window's [from, to]; a zero end is open.
type bounds struct{ from, to time.Time }

// keep reports whether x's whole interval lies within the bounds.
func (b bounds) keep(x Sample) bool {
	if !b.from.IsZero() && x.Start.Before(b.from.Add(-windowSlack)) {
		return false
	}
	return b.to.IsZero() || !x.Time.After(b.to.Add(windowSlack))
}

func (b bounds) set() bool { return !b.from.IsZero() || !b.to.IsZero() }

// and is the intersection of two bounds.
func (b bounds) and(o bounds) bounds {
	if o.from.After(b.from) {
		b.from = o.from
	}
	if !o.to.IsZero() && (b.to.IsZero() || o.to.Before(b.to)) {
		b.to = o.to
	}
	return b
}

// Window returns the samples whose whole interval lies within [from, to]: the measured window
// with the warm-up (and anything after the run) left out. A zero from or to leaves that end open.
// A spilled series' window reads the same spill file, with the bounds applied as it is read.
func (s *Series) Window(from, to time.Time) *Series {
	w := *s
	b := bounds{from, to}
	w.Samples = nil
	for _, x := range s.Samples {
		if b.keep(x) {
			w.Samples = append(w.Samples, x)
		}
	}
	if s.file != nil {
		w.bounds = s.bounds.and(b)
		w.narrow()
	}
	return &w
}

// narrow counts the spilled samples within the window's bounds and, when they are one run of
// lines (the samples in time order, as a probe records them), narrows the bytes read to theirs,
// so that every later pass over the window reads its own samples only.
func (s *Series) narrow() {
	s.kept = 0
	lo, hi, prev := s.start, s.start, s.start
	contiguous, passed := true, false
	for x, end := range times(s.file, s.start, s.size) {
		switch {
		case s.bounds.keep(x):
			if s.kept == 0 {
				lo = prev
			}
			contiguous = contiguous && !passed
			s.kept++
			hi = end
		case s.kept > 0:
			passed = true
		}
		prev = end
	}
	if contiguous && s.file.Err() == nil {
		s.start, s.size = lo, hi
	}
}

// BrokerIDs lists every broker seen in the series, from metrics or metadata.
func (s *Series) BrokerIDs() []int32 {
	seen := map[int32]bool{}
	for id := range s.HandlerPools {
		seen[id] = true
	}
	for x := range s.All() {
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

// Spill says where a series keeps the samples beyond the latest Keep: in a file in Dir, or in
// Dir's nearest existing parent (a spill creates no directory). The file has no name in the
// directory (it is unlinked as soon as it is open) and goes with Series.Close. A zero Spill
// keeps every sample in memory.
type Spill struct {
	Dir  string
	Keep int // samples held in memory; 0 means DefaultSpillKeep
}

// Add appends x to the series. With sp.Dir set, once the series holds more than sp.Keep samples
// in memory, the oldest is appended to its spill file (opened in sp.Dir the first time) and
// dropped from memory. When the spill cannot be written, x is held in memory all the same and
// the error returned. Add records a series; it is not for a Window of one.
func (s *Series) Add(x Sample, sp Spill) error {
	s.Samples = append(s.Samples, x)
	keep := sp.Keep
	if keep <= 0 {
		keep = DefaultSpillKeep
	}
	if sp.Dir == "" || len(s.Samples) <= keep {
		return nil
	}
	if s.file == nil {
		f, err := spill.Open[Sample](sp.Dir, spillPattern)
		if err != nil {
			return fmt.Errorf("probe: %w", err)
		}
		s.spilled = spilled{file: f}
	}
	size, err := s.file.Append(s.Samples[0])
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	s.size, s.n = size, s.n+1
	s.Samples = slices.Delete(s.Samples, 0, 1)
	return nil
}

// Span is the first sample's Start and the last sample's Time; zero times without samples.
func (s *Series) Span() (from, to time.Time) {
	first := true
	for x := range s.All() {
		if first {
			from, first = x.Start, false
		}
		to = x.Time
	}
	return from, to
}
