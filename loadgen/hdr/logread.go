package hdr

import (
	"fmt"
	"io"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// LoggedInterval is one histogram read back from an interval log: its tag, its period in Unix
// milliseconds and its values.
type LoggedInterval struct {
	Tag            string
	StartMs, EndMs int64 // Unix milliseconds, as the log's timestamps and StartTime give them
	Hist           *Hist
}

// ReadIntervalLog reads every interval histogram of a log written by IntervalLog.Write, through
// hdrhistogram-go's HistogramLogReader, in file order. Histograms of another geometry are
// refused (merging them would not be exact). A log keeps no exact max: each Hist's max is the
// top of its largest value's bucket (within the 0.1% resolution), and values above one hour,
// never written to a log, are absent.
func ReadIntervalLog(r io.Reader) ([]LoggedInterval, error) {
	rd := hdrhistogram.NewHistogramLogReader(r)
	var out []LoggedInterval
	for {
		d, err := rd.NextIntervalHistogram()
		if err != nil {
			return out, fmt.Errorf("interval %d: %w", len(out)+1, err)
		}
		if d == nil {
			return out, nil
		}
		if d.LowestTrackableValue() != LowestMicros || d.HighestTrackableValue() != HighestMicros || d.SignificantFigures() != SigFigs {
			return out, fmt.Errorf("interval %d: %w: values %d..%d at %d significant digits", len(out)+1, ErrEncoding,
				d.LowestTrackableValue(), d.HighestTrackableValue(), d.SignificantFigures())
		}
		h := &Hist{h: d, maxNs: min(d.Max(), HighestMicros) * 1000}
		out = append(out, LoggedInterval{Tag: d.Tag(), StartMs: d.StartTimeMs(), EndMs: d.EndTimeMs(), Hist: h})
	}
}
