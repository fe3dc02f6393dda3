package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plimsoll/plimsoll/probe"
)

// evidence ranks the USE table's utilisation cells, busiest first, as readable lines such as
// "broker 2 network in: 97% (wire bytes in ÷ NIC)". Only resources with a known capacity take
// part: a rate without a capacity says nothing about how close to the limit it is.
func evidence(t *probe.Table) []string {
	if t == nil {
		return nil
	}
	type item struct {
		entity, resource, metric string
		util                     float64
	}
	var items []item
	for _, r := range t.Rows {
		u := r.Utilisation
		if u.Blank() || !u.Mean.OK() || u.Unit != "%" {
			continue
		}
		items = append(items, item{r.Entity, r.Resource, u.Metric, float64(u.Mean)})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.util > b.util:
			return -1
		case a.util < b.util:
			return 1
		}
		return strings.Compare(a.entity+a.resource, b.entity+b.resource)
	})
	var out []string
	for i, it := range items {
		if i == 5 {
			break
		}
		out = append(out, fmt.Sprintf("%s %s: %.0f%% (%s)", it.entity, it.resource, it.util, it.metric))
	}
	return out
}
