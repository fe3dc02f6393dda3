package report

import (
	"math"
	"strconv"
	"strings"
)

// sig formats v to n significant digits without an exponent, grouping thousands with commas:
// 15422.7 -> "15,400", 0.012345 -> "0.0123". Every figure on a page goes through it, so the
// output is the same on every platform.
func sig(v float64, n int) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case v == 0:
		return "0"
	case v < 0:
		return "-" + sig(-v, n)
	}
	mag := int(math.Floor(math.Log10(v)))
	scale := math.Pow(10, float64(n-1-mag))
	r := math.Round(v*scale) / scale
	if r >= math.Pow(10, float64(mag+1)) { // 99.96 -> 100: one digit fewer after the point
		mag++
	}
	decimals := max(n-1-mag, 0)
	s := strconv.FormatFloat(r, 'f', decimals, 64)
	return group(s)
}

// group inserts commas between thousands of the integer part of a formatted number.
func group(s string) string {
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

// fmtRate formats messages per second: to the message from 100 up (a search's rates differ by a
// few percent, which three digits would blur), to 3 significant digits below.
func fmtRate(v float64) string {
	if v >= 100 && v < 1e15 {
		return group(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	}
	return sig(v, 3)
}

// fmtMBps formats bytes per second as MB/s (10^6 bytes), without the unit.
func fmtMBps(v float64) string { return sig(v/1e6, 3) }

// fmtMs formats a latency in milliseconds, without the unit, to 3 significant digits without
// trailing zeros: 2.10 -> "2.1", 0.0100 -> "0.01".
func fmtMs(v float64) string {
	s := sig(v, 3)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtSize formats a message size: exact decimal (KB, MB) or binary (KiB, MiB) multiples to at most
// one decimal place, otherwise plain bytes. 1000 -> "1 KB", 1536 -> "1.5 KiB", 1234 -> "1,234 B".
func fmtSize(n int) string {
	type unit struct {
		name string
		b    int
	}
	for _, u := range []unit{{"MB", 1e6}, {"KB", 1e3}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.b && (n*10)%u.b == 0 {
			return strconv.FormatFloat(float64(n)/float64(u.b), 'f', -1, 64) + " " + u.name
		}
	}
	return group(strconv.Itoa(n)) + " B"
}

// compact formats an axis label: 1500 -> "1.5k", 2e6 -> "2M", 0.25 -> "0.25".
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimFloat(v/1e9) + "G"
	case a >= 1e6:
		return trimFloat(v/1e6) + "M"
	case a >= 1e3:
		return trimFloat(v/1e3) + "k"
	}
	return trimFloat(v)
}

func trimFloat(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// fmtCores formats CPU cores used.
func fmtCores(v float64) string { return sig(v, 2) }

// fmtPct formats a fraction as a percentage.
func fmtPct(f float64) string { return sig(f*100, 2) + "%" }

// plural returns n and the noun, with an s when n != 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
