package probe

import (
	"bytes"
	"fmt"
	"strconv"
)

// A small reader of the Prometheus text exposition format (version 0.0.4), enough for what the
// JMX exporter serves. It is used instead of expfmt because the probe wants a handful of values
// out of every scrape each second, without building the full protobuf model for all of them.
//
//	# HELP and # TYPE lines and blank lines are skipped.
//	name{label="value",...} value [timestamp]
//
// Label values may hold escaped \\, \" and \n; values are Go floats including NaN and ±Inf.

// parseProm calls fn for every sample line with the metric name, the text between the braces
// (empty without labels) and the value. fn must not keep name or labels.
func parseProm(b []byte, fn func(name, labels []byte, v float64)) error {
	for ln := 1; len(b) > 0; ln++ {
		var line []byte
		line, b = nextLine(b)
		line = bytes.TrimRight(line, "\r")
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		name, labels, v, err := parsePromLine(line)
		if err != nil {
			return fmt.Errorf("%w Prometheus text: line %d: %v", ErrParse, ln, err)
		}
		fn(name, labels, v)
	}
	return nil
}

func parsePromLine(line []byte) (name, labels []byte, v float64, err error) {
	i := 0
	for i < len(line) && isNameByte(line[i], i == 0, true) {
		i++
	}
	if i == 0 {
		return nil, nil, 0, fmt.Errorf("metric name expected at %q", clip(line))
	}
	name, line = line[:i], line[i:]
	if len(line) > 0 && line[0] == '{' {
		end, err := scanLabels(line)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %v", name, err)
		}
		labels, line = line[1:end], line[end+1:]
	}
	var f [3][]byte
	fs := fields(line, f[:0])
	if len(fs) == 0 || len(fs) > 2 {
		return nil, nil, 0, fmt.Errorf("%s: want a value and an optional timestamp, got %q", name, clip(line))
	}
	if len(line) > 0 && line[0] != ' ' && line[0] != '\t' {
		return nil, nil, 0, fmt.Errorf("%s: no blank before the value", name)
	}
	v, perr := strconv.ParseFloat(string(fs[0]), 64)
	if perr != nil {
		return nil, nil, 0, fmt.Errorf("%s: value %q is not a number", name, clip(fs[0]))
	}
	if len(fs) == 2 {
		if _, ok := parseInt(fs[1]); !ok {
			return nil, nil, 0, fmt.Errorf("%s: timestamp %q is not an integer", name, clip(fs[1]))
		}
	}
	return name, labels, v, nil
}

// scanLabels checks the label set starting at b[0] == '{' and returns the index of its '}'.
func scanLabels(b []byte) (int, error) {
	i := 1
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i < len(b) && b[i] == '}' {
			return i, nil
		}
		j := i
		for j < len(b) && isNameByte(b[j], j == i, false) {
			j++
		}
		if j == i {
			return 0, fmt.Errorf("label name expected at %q", clip(b[i:]))
		}
		name := b[i:j]
		if j+1 >= len(b) || b[j] != '=' || b[j+1] != '"' {
			return 0, fmt.Errorf("label %s: want =\"value\"", name)
		}
		k := j + 2
		for ; k < len(b) && b[k] != '"'; k++ {
			if b[k] == '\\' {
				if k+1 >= len(b) || (b[k+1] != '\\' && b[k+1] != '"' && b[k+1] != 'n') {
					return 0, fmt.Errorf("label %s: bad escape", name)
				}
				k++
			}
		}
		if k >= len(b) {
			return 0, fmt.Errorf("label %s: unterminated value", name)
		}
		i = k + 1
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i, nil
		}
		return 0, fmt.Errorf("want ',' or '}' after label %s", name)
	}
}

// labelValue returns the (unescaped) value of label key in a label set checked by scanLabels.
func labelValue(labels []byte, key string) (string, bool) {
	for len(labels) > 0 {
		labels = bytes.TrimLeft(labels, " \t,")
		eq := bytes.IndexByte(labels, '=')
		if eq < 0 || eq+1 >= len(labels) {
			return "", false
		}
		k := labels[:eq]
		rest := labels[eq+2:] // past ="
		var val []byte
		escaped := false
		n := 0
		for ; n < len(rest) && rest[n] != '"'; n++ {
			if rest[n] == '\\' {
				escaped = true
				n++
			}
		}
		if n > len(rest) {
			return "", false
		}
		val = rest[:n]
		if n < len(rest) {
			labels = rest[n+1:]
		} else {
			labels = nil
		}
		if string(k) != key {
			continue
		}
		if !escaped {
			return string(val), true
		}
		return unescapeLabel(val), true
	}
	return "", false
}

func unescapeLabel(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			i++
			if b[i] == 'n' {
				out = append(out, '\n')
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

func isNameByte(c byte, first, colon bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c == ':':
		return colon
	case c >= '0' && c <= '9':
		return !first
	}
	return false
}

// clip shortens text quoted in an error message.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return append(append([]byte(nil), b[:40]...), "..."...)
	}
	return b
}
