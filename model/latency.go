package model

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// The capacity model has no latency in it: queueing on a Kafka cluster depends on batching,
// fetch sizes, the network stack and the brokers' threads far more than any formula of a few
// inputs could hold. What it can do is carry a measurement from one message size to the next.
//
// A latency objective (p99 publish latency at most SLO) is met up to some share of the
// capacity ceiling, the load at which the busiest resource reaches its capacity; that share is
// where the trials' p99 crosses the SLO, on an axis of load over the model's ceiling for each
// trial's message size. Calibrate finds that crossing for every size measured so far, and
// predicts the SLO limit of another size as the same share of that size's ceiling.

// LatencyObservation is one trial as the calibration reads it: its message size, the load it
// offered as a share of the model's ceiling for that size (its rate over the ceiling rate) and
// its p99 publish latency.
type LatencyObservation struct {
	Size        int     `json:"size"`
	Load        float64 `json:"load"` // rate / the model's ceiling rate for the size
	P99Ms       float64 `json:"p99_ms"`
	Overflowing bool    `json:"overflowing,omitempty"` // the trial fell behind: its p99 is a lower bound
}

// Crossing is where one size's trials cross the SLO: the highest load whose p99 met it and the
// lowest whose p99 did not, and the crossing between them (log p99 interpolated linearly in
// load).
type Crossing struct {
	Size     int     `json:"size"`
	Below    float64 `json:"below"` // load, p99 <= SLO
	Above    float64 `json:"above"` // load, p99 > SLO
	Load     float64 `json:"load"`  // the crossing
	Observed int     `json:"observed"`
}

// LatencyCalibration is a cluster's SLO, carried across message sizes.
type LatencyCalibration struct {
	SLOMs     float64    `json:"slo_ms"`
	Crossings []Crossing `json:"crossings"`
	// Load is the share of the ceiling at which p99 reaches the SLO, the geometric mean over the
	// crossings.
	Load float64 `json:"load"`
}

// ErrNoCrossing is returned by Calibrate when no size has trials on both sides of the SLO.
var ErrNoCrossing = errors.New("no message size has trials both within and beyond the SLO")

// Calibrate finds, for each size, where its trials' p99 crosses sloMs, and the share of the
// ceiling that predicts other sizes. A size needs a trial whose p99 met the SLO below one whose
// p99 did not; the crossing interpolates log(p99) linearly between the closest such pair.
func Calibrate(obs []LatencyObservation, sloMs float64) (LatencyCalibration, error) {
	if !(sloMs > 0) {
		return LatencyCalibration{}, fmt.Errorf("%w: the SLO must be a positive number of ms, got %v", ErrInput, sloMs)
	}
	cal := LatencyCalibration{SLOMs: sloMs}
	sizes := map[int][]LatencyObservation{}
	for _, o := range obs {
		if o.Load > 0 && o.P99Ms > 0 && !math.IsInf(o.Load, 0) && !math.IsInf(o.P99Ms, 0) {
			sizes[o.Size] = append(sizes[o.Size], o)
		}
	}
	keys := make([]int, 0, len(sizes))
	for s := range sizes {
		keys = append(keys, s)
	}
	slices.Sort(keys)
	var loads []float64
	for _, s := range keys {
		c, ok := crossing(s, sizes[s], sloMs)
		if !ok {
			continue
		}
		cal.Crossings = append(cal.Crossings, c)
		loads = append(loads, c.Load)
	}
	if len(cal.Crossings) == 0 {
		return cal, ErrNoCrossing
	}
	cal.Load = stat.GeometricMean(loads, nil)
	return cal, nil
}

// crossing is the SLO crossing of one size's trials: between the highest load that met the SLO
// below the lowest that missed it.
func crossing(size int, obs []LatencyObservation, slo float64) (Crossing, bool) {
	var below, above *LatencyObservation
	for i := range obs {
		o := &obs[i]
		if (o.P99Ms > slo || o.Overflowing) && (above == nil || o.Load < above.Load) {
			above = o
		}
	}
	if above == nil {
		return Crossing{}, false
	}
	for i := range obs {
		o := &obs[i]
		if o.P99Ms <= slo && !o.Overflowing && o.Load < above.Load && (below == nil || o.Load > below.Load) {
			below = o
		}
	}
	if below == nil {
		return Crossing{}, false
	}
	c := Crossing{Size: size, Below: below.Load, Above: above.Load, Observed: len(obs)}
	// log p99 linear in load between the two; a p99 that overflowed counts as at least the SLO.
	lb, la := math.Log(below.P99Ms), math.Log(math.Max(above.P99Ms, slo))
	f := 1.0
	if la > lb {
		f = (math.Log(slo) - lb) / (la - lb)
	}
	c.Load = below.Load + f*(above.Load-below.Load)
	return c, true
}

// SLORate is the predicted SLO limit for a size whose ceiling (the model's, msgs/s) is ceiling.
func (c LatencyCalibration) SLORate(ceiling float64) float64 { return c.Load * ceiling }
