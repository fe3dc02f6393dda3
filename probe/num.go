package probe

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// Num is a measured value; NaN means it is missing (no reading, a failed scrape, a counter that
// went backwards). It marshals as null when missing, so JSON readers see the gap.
type Num float64

// Missing is the missing value.
var Missing = Num(math.NaN())

// OK reports whether the value was measured.
func (n Num) OK() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// Or returns the value, or def when it is missing.
func (n Num) Or(def float64) float64 {
	if n.OK() {
		return float64(n)
	}
	return def
}

// MarshalJSON writes null for a missing value.
func (n Num) MarshalJSON() ([]byte, error) {
	if !n.OK() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(n), 'g', -1, 64), nil
}

// UnmarshalJSON reads null as missing. encoding/json hands it one valid JSON value, so a number
// is parsed as encoding/json parses one into a float64 (strconv.ParseFloat), without a decoder
// of its own for each value: reading a sample back is most of a spilled series' cost.
func (n *Num) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*n = Missing
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return &json.UnmarshalTypeError{Value: "value " + string(b), Type: reflect.TypeFor[float64]()}
	}
	*n = Num(f)
	return nil
}

// rate is (cur-prev)/dt for a cumulative counter; missing when either reading is missing, the
// interval is not positive, or the counter went backwards (a restart reset it).
func rate(prev, cur Num, dt float64) Num {
	if !prev.OK() || !cur.OK() || dt <= 0 || cur < prev {
		return Missing
	}
	return (cur - prev) / Num(dt)
}

// urate is rate for unsigned kernel counters.
func urate(prev, cur uint64, dt float64) Num {
	if dt <= 0 || cur < prev {
		return Missing
	}
	return Num(float64(cur-prev) / dt)
}

// clamp01 bounds a fraction to [0,1], leaving a missing value missing.
func clamp01(n Num) Num {
	if !n.OK() {
		return n
	}
	return Num(math.Max(0, math.Min(1, float64(n))))
}
