package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plimsoll/plimsoll/results"
)

// Difference is one setting of the workload that differs between two results.
type Difference struct {
	Setting string `json:"setting"` // e.g. "spec.message-size", "client_props.producer.props.acks"
	A       string `json:"a"`       // "" when absent
	B       string `json:"b"`
	// Where names the two results compared: "A vs B", or a side's first and another
	// repetition.
	Where string `json:"where"`
}

// WorkloadError lists the workload differences that keep two results from being compared.
type WorkloadError struct{ Diffs []Difference }

func (e *WorkloadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the results ran different workloads (%d differences; compare them anyway with --force):", len(e.Diffs))
	for _, d := range e.Diffs {
		fmt.Fprintf(&b, "\n  %s: %s: %s vs %s", d.Where, d.Setting, orNone(d.A), orNone(d.B))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// ignored are settings that do not change what is measured: names, where a spec came from,
// and the lengths of the window and the warm-up (they change how many seconds there are to
// compare, not the load). A search's rates are its own to choose.
var ignored = map[string]bool{
	"spec.name": true, "spec.source": true, "spec.driver": true, "spec.format": true,
	"spec.duration": true, "spec.warmup": true,
}

// runWorkload is what a run's figures depend on besides the cluster under test: the spec and
// the resolved topics, partitions, replication and client properties.
func runWorkload(t *results.Trial) map[string]string {
	c := t.Config
	return flatten(map[string]any{"spec": c.Spec, "client_props": c.ClientProps, "topics": len(c.Topics),
		"partitions_per_topic": c.Partitions, "replication_factor": c.ReplicationFactor,
		"producer_clients": c.ProducerClients, "consumer_clients": c.ConsumerClients, "key_bytes": c.KeyBytes,
		"topic_configs": c.TopicConfigs})
}

// searchWorkload is what a search's limits depend on besides the cluster under test: the
// sizes, the criteria and the workload (its rate left out: the search chooses rates).
func searchWorkload(sf *results.SearchFile) map[string]string {
	h := sf.Header
	v := map[string]any{"sizes": h.Sizes, "slo": h.SLO}
	if c := h.Config; c != nil {
		v["spec"], v["criteria"] = c.Spec, c.Criteria
		v["brokers"], v["replication_factor"], v["partitions"] = c.Brokers, c.ReplicationFactor, c.Partitions
		v["brokers_down"] = c.BrokersDown
	}
	m := flatten(v)
	delete(m, "spec.rate")
	delete(m, "spec.message-size")
	return m
}

// flatten turns v's JSON form into dotted paths and their values, leaving out ignored ones.
func flatten(v any) map[string]string {
	data, err := json.Marshal(v)
	out := map[string]string{}
	if err != nil {
		out["(unencodable)"] = err.Error()
		return out
	}
	var tree any
	_ = json.Unmarshal(data, &tree)
	walk("", tree, out)
	for k := range out {
		if ignored[k] {
			delete(out, k)
		}
	}
	return out
}

func walk(path string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walk(strings.TrimPrefix(path+"."+k, "."), e, out)
		}
	case nil:
	default:
		b, _ := json.Marshal(x)
		out[path] = strings.Trim(string(b), `"`)
	}
}

// diff lists the settings where a and b differ, sorted.
func diff(where string, a, b map[string]string) []Difference {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []Difference
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, Difference{Setting: k, A: a[k], B: b[k], Where: where})
		}
	}
	return out
}

// workloads returns each repetition's workload of a side.
func workloads(s Side) []map[string]string {
	var out []map[string]string
	for _, t := range s.Runs {
		out = append(out, runWorkload(t))
	}
	for _, sf := range s.Searches {
		out = append(out, searchWorkload(sf))
	}
	return out
}

// Differences compares the workloads of every repetition with A's first: within A, within B
// and between A and B.
func Differences(a, b Side) []Difference {
	wa, wb := workloads(a), workloads(b)
	if len(wa) == 0 || len(wb) == 0 {
		return nil
	}
	var out []Difference
	for i := 1; i < len(wa); i++ {
		out = append(out, diff(fmt.Sprintf("A %s vs A %s", a.Locations[0], a.Locations[i]), wa[0], wa[i])...)
	}
	for i := 1; i < len(wb); i++ {
		out = append(out, diff(fmt.Sprintf("B %s vs B %s", b.Locations[0], b.Locations[i]), wb[0], wb[i])...)
	}
	return append(out, diff("A vs B", wa[0], wb[0])...)
}
