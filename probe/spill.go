package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/plimsoll/plimsoll/internal/spill"
)

// DefaultSpillKeep is how many of the latest samples a spilling series holds in memory: ten
// minutes at one a second, about 2.2 MB of a 3-broker cluster's samples. Every pass over a spilled
// sample decodes it again (judging a window reads the series 47 times, most of them stopping at
// the first sample: 5.2 ms a spilled sample against 12 µs one in memory, BenchmarkJudgeSpilled
// in trial), so a series spills only what a long run adds: the trials of a limit search and
// runs of up to ten minutes never do.
const DefaultSpillKeep = 600

// spillPattern names a probe's spill file (which has no name once it is open).
const spillPattern = ".plimsoll-probe-spill-*.jsonl"

// times yields the times of the samples in [from, to) of f, each with the offset just after its
// line, reading each line's start only (a sample's JSON begins with its start and time, as
// encoding/json writes a Sample); a line that does not is decoded whole.
func times(f *spill.File[Sample], from, to int64) iter.Seq2[Sample, int64] {
	return func(yield func(Sample, int64) bool) {
		for line, end := range f.Lines(from, to) {
			x, err := timesOf(line)
			if err != nil {
				f.Fail(fmt.Errorf("a sample's times: %w", err))
				return
			}
			if !yield(x, end) {
				return
			}
		}
	}
}

// timesOf reads a sample's start and time from the start of its line, or the whole line.
func timesOf(line []byte) (Sample, error) {
	var x Sample
	rest, ok := bytes.CutPrefix(line, []byte(`{"start":`))
	i := bytes.IndexByte(rest, ',')
	if ok && i > 0 {
		if tail, ok := bytes.CutPrefix(rest[i:], []byte(`,"time":`)); ok {
			if j := bytes.IndexAny(tail, ",}"); j > 0 &&
				x.Start.UnmarshalJSON(rest[:i]) == nil && x.Time.UnmarshalJSON(tail[:j]) == nil {
				return x, nil
			}
		}
	}
	var t sampleTimes
	err := json.Unmarshal(line, &t)
	return Sample{Start: t.Start, Time: t.Time}, err
}

// sampleTimes is the part of a sample's JSON that windows read.
type sampleTimes struct {
	Start time.Time `json:"start"`
	Time  time.Time `json:"time"`
}
