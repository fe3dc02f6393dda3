package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/units"
)

// Params are a scenario's parameters as run: each name's value for the mode, then --set.
type Params map[string]string

// Resolve gives every parameter of s its value for mode, then applies set; a name s does not
// have is an error listing the ones it has.
func Resolve(s Scenario, mode Mode, set map[string]string) (Params, error) {
	if mode != Short && mode != Full {
		return nil, fmt.Errorf("--mode %q: want short or full", mode)
	}
	p := Params{}
	for _, d := range s.Params {
		p[d.Name] = d.Full
		if mode == Short {
			p[d.Name] = d.Short
		}
	}
	for k, v := range set {
		if _, ok := p[k]; !ok {
			var names []string
			for _, d := range s.Params {
				names = append(names, d.Name)
			}
			return nil, fmt.Errorf("--set %s: scenario %s has no parameter %q; it has: %s", k, s.Name, k, strings.Join(names, ", "))
		}
		p[k] = v
	}
	return p, nil
}

// Int returns an integer parameter (sizes such as 10k allowed); its error names the parameter.
func (p Params) Int(name string) (int, error) {
	v, err := units.ParseCount(p[name])
	if err != nil {
		return 0, fmt.Errorf("--set %s=%s: %w", name, p[name], err)
	}
	return int(v), nil
}

// Ints returns a comma-separated list of integers.
func (p Params) Ints(name string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(p[name], ",") {
		v, err := units.ParseCount(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--set %s=%s: %w", name, p[name], err)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// Float returns a floating-point parameter.
func (p Params) Float(name string) (float64, error) {
	v, err := strconv.ParseFloat(p[name], 64)
	if err != nil {
		return 0, fmt.Errorf("--set %s=%s: want a number", name, p[name])
	}
	return v, nil
}

// Duration returns a duration parameter ("30s").
func (p Params) Duration(name string) (time.Duration, error) {
	v, err := time.ParseDuration(p[name])
	if err != nil {
		return 0, fmt.Errorf("--set %s=%s: want a duration such as 30s", name, p[name])
	}
	return v, nil
}
