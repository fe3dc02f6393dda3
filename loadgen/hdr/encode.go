package hdr

import (
	"encoding/json"
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Encoded is a Hist in a form JSON can carry and Decode turns back into the same Hist, so that
// stored histograms can be merged exactly later (percentiles are never averaged).
type Encoded struct {
	// HDR holds the values up to one hour, in microseconds, in hdrhistogram-go's V2 compressed
	// encoding (base64): the form HdrHistogram's interval logs use, which hdrhistogram.Decode
	// and HdrHistogram's other implementations read.
	HDR string `json:"hdr"`
	// Overflow counts the values above one hour, which the HDR part does not hold.
	Overflow int64 `json:"overflow"`
	// MaxNs is the exact largest value recorded, overflow included, in nanoseconds.
	MaxNs int64 `json:"max_ns"`
}

// ErrEncoding: an Encoded does not decode to a Hist of this package's geometry.
var ErrEncoding = errors.New("not an encoded plimsoll histogram")

// Encode returns h in its exact, mergeable encoded form.
func (h *Hist) Encode() (Encoded, error) {
	b, err := h.h.EncodeV2()
	if err != nil {
		return Encoded{}, err
	}
	return Encoded{HDR: string(b), Overflow: h.overflow, MaxNs: h.maxNs}, nil
}

// Decode rebuilds the Hist that Encode encoded. It refuses histograms of another geometry
// (lowest and highest value, significant digits): merging those would not be exact.
func Decode(e Encoded) (*Hist, error) {
	if e.Overflow < 0 || e.MaxNs < 0 {
		return nil, fmt.Errorf("%w: overflow %d, max %d ns", ErrEncoding, e.Overflow, e.MaxNs)
	}
	d, err := hdrhistogram.Decode([]byte(e.HDR))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	if d.LowestTrackableValue() != LowestMicros || d.HighestTrackableValue() != HighestMicros || d.SignificantFigures() != SigFigs {
		return nil, fmt.Errorf("%w: values %d..%d at %d significant digits, want %d..%d at %d", ErrEncoding,
			d.LowestTrackableValue(), d.HighestTrackableValue(), d.SignificantFigures(), LowestMicros, HighestMicros, SigFigs)
	}
	if e.Overflow > 0 && e.MaxNs <= HighestMicros*1000 {
		return nil, fmt.Errorf("%w: %d values overflowed, but the max %d ns is within range", ErrEncoding, e.Overflow, e.MaxNs)
	}
	return &Hist{h: d, overflow: e.Overflow, maxNs: e.MaxNs}, nil
}

// MarshalJSON writes h as its Encoded form.
func (h *Hist) MarshalJSON() ([]byte, error) {
	e, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(e)
}

// UnmarshalJSON reads the Encoded form into h.
func (h *Hist) UnmarshalJSON(b []byte) error {
	var e Encoded
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	d, err := Decode(e)
	if err != nil {
		return err
	}
	*h = *d
	return nil
}
