package use

import (
	"cmp"
	"slices"
)

// Busy is one resource's mean utilisation over the window, in percent.
type Busy struct {
	Entity, Resource string
	Metric           string // the utilisation cell's metric, e.g. "wire bytes in ÷ NIC"
	Utilisation      float64
}

// Busiest ranks the table's utilisation cells, busiest first, and returns at most n of them.
// Only cells in percent of a known capacity take part: a rate without a capacity says nothing
// about how close to the limit it is. Equal utilisations are ordered by entity and resource.
func Busiest(t *Table, n int) []Busy {
	if t == nil {
		return nil
	}
	var items []Busy
	for _, r := range t.Rows {
		u := r.Utilisation
		if u.Blank() || !u.Mean.OK() || u.Unit != UnitPct {
			continue
		}
		items = append(items, Busy{r.Entity, r.Resource, u.Metric, float64(u.Mean)})
	}
	slices.SortStableFunc(items, func(a, b Busy) int {
		if c := cmp.Compare(b.Utilisation, a.Utilisation); c != 0 {
			return c
		}
		return cmp.Compare(a.Entity+a.Resource, b.Entity+b.Resource)
	})
	return items[:min(n, len(items))]
}
