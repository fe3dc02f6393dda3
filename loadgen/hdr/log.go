package hdr

import (
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/plimsoll/plimsoll/internal/spill"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Interval is one tagged histogram of one period of an interval log.
type Interval struct {
	Tag            string
	StartMs, EndMs int64 // since the log's Start
	// Hist is kept encoded: a Hist of this geometry holds about 190 KB of counters, its encoding
	// a few hundred bytes, and a log keeps several per second of the run.
	Hist Encoded
}

// IntervalLog collects interval histograms for an HdrHistogram interval log.
//
// Over a long run its memory stays flat when SpillDir is set: beyond the latest SpillKeep
// intervals (default DefaultSpillKeep), each is appended to a spill file (internal/spill's
// Tail) as it leaves memory. Read the intervals through All, which sees both.
type IntervalLog struct {
	Start time.Time // the wall clock at interval time zero
	// SpillDir, when set, is where the intervals beyond the latest SpillKeep are spilled (or its
	// nearest existing parent; the file has no name there and goes with Close).
	SpillDir  string
	SpillKeep int

	tail spill.Tail[Interval]
}

// DefaultSpillKeep is how many of the latest intervals a spilling log holds in memory: ten
// minutes of a run's three histograms a second.
const DefaultSpillKeep = 1800

// Add appends h as the histogram tagged tag over [startMs, endMs). An empty h adds nothing.
// h is encoded at once, so the caller may reset and reuse it. When the spill cannot be written,
// the interval is held in memory, as every later one is, and the error returned once.
func (l *IntervalLog) Add(tag string, startMs, endMs int64, h *Hist) error {
	if h.h.TotalCount() == 0 {
		return nil
	}
	e, err := h.Encode()
	if err != nil {
		return err
	}
	return l.AddEncoded(tag, startMs, endMs, e)
}

// AddEncoded appends a histogram already encoded (the caller hands the encoding on elsewhere
// too), even an empty one; the spill as for Add.
func (l *IntervalLog) AddEncoded(tag string, startMs, endMs int64, e Encoded) error {
	return l.add(Interval{Tag: tag, StartMs: startMs, EndMs: endMs, Hist: e})
}

// add appends iv, spilling the oldest interval held when more than the keep are.
func (l *IntervalLog) add(iv Interval) error {
	keep := l.SpillKeep
	if keep <= 0 {
		keep = DefaultSpillKeep
	}
	l.tail.Dir, l.tail.Keep, l.tail.Pattern = l.SpillDir, keep, ".plimsoll-hlog-spill-*.jsonl"
	if err := l.tail.Add(iv); err != nil {
		return fmt.Errorf("interval log: %w: the intervals from then on are held in memory", err)
	}
	return nil
}

// All yields every interval in the order added: the spilled ones read back, then those in
// memory. A spill that cannot be read back ends the sequence early; Err says so.
func (l *IntervalLog) All() iter.Seq[Interval] { return l.tail.All() }

// Len is the number of intervals All yields.
func (l *IntervalLog) Len() int { return l.tail.Len() }

// Err is the first error reading the spilled intervals back.
func (l *IntervalLog) Err() error { return l.tail.Err() }

// Close releases the spill file, if any; afterwards the log yields only the intervals in memory.
func (l *IntervalLog) Close() error { return l.tail.Close() }

// Write writes the log through hdrhistogram-go's HistogramLogWriter: the comment, the format
// version, the start time and the legend, then one line per interval with its tag (each
// histogram stamped with SetTag, SetStartTimeMs and SetEndTimeMs). HistogramLogAnalyzer and
// hdrhistogram-go's HistogramLogReader read it. The StartTime line holds whole seconds, so the
// interval times are written from Start's whole second (the writer's base time): a reader
// adding them to StartTime gets each interval's wall-clock time to the millisecond.
//
// Values are in microseconds. The writer prints each interval's max divided by 1e6 (its
// nanosecond-to-millisecond ratio, which v1.4.0 lets no caller change), so for these values
// that column is in seconds. Values above one hour are not in the log's histograms: they are
// counted in the Hist's overflow (in result.json), not here.
func (l *IntervalLog) Write(w io.Writer, comment string) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	if err := lw.OutputComment(comment); err != nil {
		return err
	}
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	startMs := l.Start.UnixMilli()
	if err := lw.OutputStartTime(startMs); err != nil {
		return err
	}
	lw.SetBaseTime(startMs - startMs%1000)
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for iv := range l.All() {
		h, err := Decode(iv.Hist)
		if err != nil {
			return fmt.Errorf("interval %s at %d ms: %w", iv.Tag, iv.StartMs, err)
		}
		h.h.SetTag(iv.Tag)
		h.h.SetStartTimeMs(startMs + iv.StartMs)
		h.h.SetEndTimeMs(startMs + iv.EndMs)
		if err := lw.OutputIntervalHistogram(h.h); err != nil {
			return err
		}
	}
	return l.Err()
}
