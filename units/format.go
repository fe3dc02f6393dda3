package units

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Sig formats v to n significant digits without an exponent, grouping thousands with commas:
// 15422.7 -> "15,400", 0.012345 -> "0.0123". Every figure on a page goes through it, so the
// output is the same on every platform.
func Sig(v float64, n int) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case v == 0:
		return "0"
	case v < 0:
		return "-" + Sig(-v, n)
	}
	mag := int(math.Floor(math.Log10(v)))
	scale := math.Pow(10, float64(n-1-mag))
	r := math.Round(v*scale) / scale
	if r >= math.Pow(10, float64(mag+1)) { // 99.96 -> 100: one digit fewer after the point
		mag++
	}
	decimals := max(n-1-mag, 0)
	s := strconv.FormatFloat(r, 'f', decimals, 64)
	return Group(s)
}

// Group inserts commas between thousands of the integer part of a formatted number.
func Group(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Int formats a whole count (partitions, brokers): every digit, thousands grouped.
func Int(n int) string { return Group(strconv.Itoa(n)) }

// Count formats messages per second: to the message from 100 up (a search's rates differ by a
// few percent, which three digits would blur), to 3 significant digits below.
func Count(v float64) string {
	if v >= 100 && v < 1e15 {
		return Group(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	}
	return Sig(v, 3)
}

// MBps formats bytes per second as MB/s (10^6 bytes), without the unit.
func MBps(v float64) string { return Sig(v/1e6, 3) }

// Ms formats a latency in milliseconds, without the unit, to 3 significant digits without
// trailing zeros: 2.10 -> "2.1", 0.0100 -> "0.01".
func Ms(v float64) string { return Short(v) }

// Short formats a figure in a sentence to 3 significant digits without trailing zeros:
// 41.0 -> "41", 3.60 -> "3.6", 2400 -> "2,400".
func Short(v float64) string {
	s := Sig(v, 3)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Size formats a message size: exact decimal (KB, MB) or binary (KiB, MiB) multiples to at most
// one decimal place, otherwise plain bytes. 1000 -> "1 KB", 1536 -> "1.5 KiB", 1234 -> "1,234 B".
func Size(n int) string {
	type unit struct {
		name string
		b    int
	}
	for _, u := range []unit{{"MB", 1e6}, {"KB", 1e3}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.b && (n*10)%u.b == 0 {
			return strconv.FormatFloat(float64(n)/float64(u.b), 'f', -1, 64) + " " + u.name
		}
	}
	return Group(strconv.Itoa(n)) + " B"
}

// Compact formats an axis label: 1500 -> "1.5k", 2e6 -> "2M", 0.25 -> "0.25".
func Compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return Trim(v/1e9) + "G"
	case a >= 1e6:
		return Trim(v/1e6) + "M"
	case a >= 1e3:
		return Trim(v/1e3) + "k"
	}
	return Trim(v)
}

func Trim(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// Cores formats CPU cores used.
func Cores(v float64) string { return Sig(v, 2) }

// Pct formats a fraction as a percentage.
func Pct(f float64) string { return Sig(f*100, 2) + "%" }

// Plural returns n and the noun, with an s when n != 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// FracBytes renders a byte count with two decimals ("1012.73 B"): per-message averages.
func FracBytes(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " B" }

// Percent shows a fraction as a percentage to one decimal ("66.7%", "80%").
func Percent(f float64) string { return strconv.FormatFloat(math.Round(1000*f)/10, 'f', -1, 64) + "%" }

// SI renders a count with an SI prefix and three significant digits ("1.50M", "15.0k", "950").
func SI(v float64) string {
	switch a := v; {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 3-digits(v/1e9), 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 3-digits(v/1e6), 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 3-digits(v/1e3), 64) + "k"
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// digits is the number of digits before the decimal point of v >= 1, at most 3.
func digits(v float64) int {
	switch {
	case v >= 100:
		return 3
	case v >= 10:
		return 2
	}
	return 1
}

// Network shows a rate in bytes and in bits, as NICs are sold in bits.
func Network(bps float64) string {
	if bps == 0 {
		return FormatRate(0)
	}
	return FormatRate(bps) + " (" + FormatBits(bps) + ")"
}

// Change shows a relative change with its sign to one decimal: 0.1 -> "+10.0%", -0.0234 ->
// "-2.3%", 0 -> "0.0%".
func Change(f float64) string {
	s := strconv.FormatFloat(math.Round(1000*f)/10, 'f', 1, 64)
	switch {
	case s == "0.0" || s == "-0.0":
		return "0.0%"
	case f > 0:
		return "+" + s + "%"
	}
	return s + "%"
}

// P shows a p-value to two significant digits, and below 0.001 as "<0.001".
func P(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return Sig(p, 2)
}

// Duration formats a span of time to the second as people say it: "45 s", "4 min 38 s",
// "1 h 5 min" (to the minute from an hour up).
func Duration(d time.Duration) string {
	d = d.Round(time.Second)
	if d >= time.Hour {
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return strconv.Itoa(h) + " h"
		}
		return strconv.Itoa(h) + " h " + strconv.Itoa(m) + " min"
	}
	m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case m == 0:
		return strconv.Itoa(s) + " s"
	case s == 0:
		return strconv.Itoa(m) + " min"
	}
	return strconv.Itoa(m) + " min " + strconv.Itoa(s) + " s"
}
