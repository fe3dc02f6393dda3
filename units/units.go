package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrSyntax is wrapped by every parse error, so callers can tell bad input from other failures.
var ErrSyntax = errors.New("invalid quantity")

var prefixes = map[string]float64{
	"":   1,
	"k":  1e3,
	"K":  1e3,
	"M":  1e6,
	"G":  1e9,
	"T":  1e12,
	"Ki": 1 << 10,
	"Mi": 1 << 20,
	"Gi": 1 << 30,
	"Ti": 1 << 40,
}

// splitNumber returns the leading decimal number of s and the rest with spaces trimmed.
func splitNumber(s string) (float64, string, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == 'e' && i > 0 && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-' || s[i+1] == '+') || (s[i] == '-' || s[i] == '+') && (i == 0 || s[i-1] == 'e')) {
		i++
	}
	if i == 0 {
		return 0, "", fmt.Errorf("%w %q: it must start with a number, e.g. 100MB/s", ErrSyntax, s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%w %q: %q is not a number", ErrSyntax, s, s[:i])
	}
	return v, strings.TrimSpace(s[i:]), nil
}

// unitScale returns the bytes per unit of a size unit such as "MB", "MiB", "Mbit", "B" or "".
func unitScale(u string) (float64, bool) {
	bits := false
	switch {
	case strings.HasSuffix(u, "bit"):
		bits, u = true, strings.TrimSuffix(u, "bit")
	case strings.HasSuffix(u, "bps"):
		bits, u = true, strings.TrimSuffix(u, "bps")
	case strings.HasSuffix(u, "B"):
		u = strings.TrimSuffix(u, "B")
	case u == "" || u == "k" || u == "K" || u == "M" || u == "G" || u == "T" || strings.HasSuffix(u, "i"):
		// a bare prefix means bytes: "64k", "1Mi"
	default:
		return 0, false
	}
	p, ok := prefixes[u]
	if !ok {
		return 0, false
	}
	if bits {
		return p / 8, true
	}
	return p, true
}

// ParseBytes parses a size such as "1000", "64KiB", "1.5GB" or "800Mbit" into bytes.
func ParseBytes(s string) (float64, error) {
	v, u, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	scale, ok := unitScale(u)
	if !ok {
		return 0, fmt.Errorf("%w %q: unknown unit %q (use B, KB, MB, GB, KiB, MiB, GiB, or bit, Mbit, Gbit)", ErrSyntax, s, u)
	}
	return v * scale, nil
}

// ParseRate parses a data rate into bytes per second. A rate needs a unit (only 0 may go
// without): B or byte for bytes, bit or b for bits (b alone after a prefix, as in Mb/s, is a
// bit), with an SI (k, M, G, T) or binary (Ki, Mi, Gi, Ti) prefix, then /s, /sec, /min or ps:
// "300MB/s", "2.5Gbit/s", "1GBps", "1Gbps", "16 Mb/s", "1 MiB/s", "6GB/min". A lowercase
// m, g or t prefix ("100mb/s") is refused with the two spellings it may have meant.
func ParseRate(s string) (float64, error) {
	v, u, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	num := strings.TrimSpace(strings.TrimSpace(s)[:len(strings.TrimSpace(s))-len(u)])
	per, unit := 1.0, u
	switch {
	case strings.HasSuffix(u, "/s"):
		unit = strings.TrimSuffix(u, "/s")
	case strings.HasSuffix(u, "/sec"):
		unit = strings.TrimSuffix(u, "/sec")
	case strings.HasSuffix(u, "/min"):
		unit, per = strings.TrimSuffix(u, "/min"), 60
	case strings.HasSuffix(u, "ps"): // Mbps, GBps
		unit = strings.TrimSuffix(u, "ps")
	case u == "" && v == 0:
		return 0, nil
	case u == "":
		return 0, fmt.Errorf("%w %q: a rate needs a unit: write %sMB/s (bytes) or %sMbit/s (bits) per second", ErrSyntax, s, num, num)
	default:
		return 0, fmt.Errorf("%w %q: a rate needs a unit per second, e.g. 100MB/s or 1Gbit/s", ErrSyntax, s)
	}
	scale, err := rateUnit(strings.TrimSpace(unit), num)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %v", ErrSyntax, s, err)
	}
	return v * scale / per, nil
}

// rateUnit is the bytes in one unit of a rate's unit before its "per second": "MB" 1e6,
// "Mbit" and "Mb" 1e6/8, "KiB" 1024. num is the number as written, for the fix.
func rateUnit(u, num string) (float64, error) {
	var base string
	for _, b := range []string{"bits", "bit", "bytes", "byte", "b", "B"} {
		if strings.HasSuffix(u, b) {
			base = b
			break
		}
	}
	prefix := strings.TrimSuffix(u, base)
	p, ok := prefixes[prefix]
	if base == "" && ok {
		return 0, fmt.Errorf("no unit: write %s%sB/s (bytes) or %s%sbit/s (bits) per second", num, prefix, num, prefix)
	}
	if !ok && (prefix == "m" || prefix == "g" || prefix == "t") {
		up := strings.ToUpper(prefix)
		return 0, fmt.Errorf("%q is ambiguous (m is milli): write %s%sB/s for bytes or %s%sbit/s for bits", u, num, up, num, up)
	}
	if !ok || base == "" {
		return 0, fmt.Errorf("unknown unit %q (use B/s, KB/s, MB/s, GB/s, MiB/s, GBps, or bit/s, Mbit/s, Gbit/s, Mbps)", u)
	}
	if base == "B" || strings.HasPrefix(base, "byte") {
		return p, nil
	}
	return p / 8, nil
}

// FormatBytes renders n bytes with a decimal prefix and three significant digits ("1.50 MB").
func FormatBytes(n float64) string { return format(n, "B") }

// FormatRate renders a rate in bytes per second with a decimal prefix ("125 MB/s").
func FormatRate(bps float64) string { return format(bps, "B/s") }

// FormatBits renders a rate in bytes per second as bits per second ("1.00 Gbit/s").
func FormatBits(bps float64) string { return format(bps*8, "bit/s") }

func format(v float64, unit string) string {
	a := math.Abs(v)
	p := ""
	switch {
	case a >= 1e12:
		v, p = v/1e12, "T"
	case a >= 1e9:
		v, p = v/1e9, "G"
	case a >= 1e6:
		v, p = v/1e6, "M"
	case a >= 1e3:
		v, p = v/1e3, "k"
	}
	if p == "k" && unit != "bit/s" {
		p = "K"
	}
	switch a := math.Abs(v); {
	case a >= 100 || a == 0:
		return fmt.Sprintf("%.0f %s%s", v, p, unit)
	case a >= 10:
		return fmt.Sprintf("%.1f %s%s", v, p, unit)
	default:
		return fmt.Sprintf("%.2f %s%s", v, p, unit)
	}
}

// ParseCount parses a count or a count per second: "1500000", "1.5M", "150k/s", "50_000 msgs/s"
// (k or K, M and G are powers of ten; "/s", "/sec", "msg/s" and "msgs/s" may follow). It returns
// the number itself: a rate's unit is the caller's to say.
func ParseCount(s string) (float64, error) {
	t := strings.TrimSpace(s)
	for _, suf := range []string{"msgs/s", "msg/s", "/sec", "/s"} {
		if strings.HasSuffix(t, suf) {
			t = strings.TrimSpace(strings.TrimSuffix(t, suf))
			break
		}
	}
	scale := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			scale, t = 1e3, t[:n-1]
		case 'M':
			scale, t = 1e6, t[:n-1]
		case 'G':
			scale, t = 1e9, t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(t), "_", ""), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f*scale, 0) {
		return 0, fmt.Errorf("%w %q: not a count (e.g. 1500000, 1.5M or 150k)", ErrSyntax, s)
	}
	return f * scale, nil
}
