package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/plimsoll/plimsoll/results"
)

// GoldenRun is a fake run whose record the report's golden files show (TestReportGolden in
// report_test.go): the record, and what to write in place of the run's temporary paths and
// ports so that the text is the same on every machine.
type GoldenRun func(t *testing.T) (results.Scenario, *strings.Replacer)

// GoldenRuns are the package's own tests' runs of the scenarios that have no test of their own
// outside it, by the name of their golden file.
var GoldenRuns = map[string]GoldenRun{
	"consumer-fanout": func(t *testing.T) (results.Scenario, *strings.Replacer) {
		res, _, env := fanoutRun(t, nil)
		return res, hidden(env)
	},
	"consumer-fanout-limit": func(t *testing.T) (results.Scenario, *strings.Replacer) {
		res, env := fanoutSearches(t)
		return res, hidden(env)
	},
	"partitions-throughput": func(t *testing.T) (results.Scenario, *strings.Replacer) {
		res, _, env := partitionsRun(t)
		return res, hidden(env)
	},
	"partition-creation": func(t *testing.T) (results.Scenario, *strings.Replacer) {
		res, env, fakes := creationRun(t)
		return res, hidden(env, fakes...)
	},
	"reassignment": func(t *testing.T) (results.Scenario, *strings.Replacer) {
		res, env, fc := reassignmentRun(t)
		return res, hidden(env, fc)
	},
	"max-partitions": func(t *testing.T) (results.Scenario, *strings.Replacer) {
		res, env, fc := maxPartitionsRun(t)
		return res, hidden(env, fc)
	},
}

// hidden replaces env's output directory and cluster with OUT and CLUSTER, and the address of
// each broker of each fake with FAKEi:BROKERj.
func hidden(env *Env, fakes ...*kfake.Cluster) *strings.Replacer {
	var pairs []string
	for i, fc := range fakes {
		for j, addr := range fc.ListenAddrs() {
			pairs = append(pairs, addr, fmt.Sprintf("FAKE%d:BROKER%d", i+1, j+1))
		}
	}
	pairs = append(pairs, env.Out, "OUT")
	if strings.HasPrefix(env.ClusterDir, "/") {
		pairs = append(pairs, env.ClusterDir, "CLUSTER")
	}
	return strings.NewReplacer(pairs...)
}
