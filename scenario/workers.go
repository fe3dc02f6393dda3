package scenario

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/workload"
)

// loadCommands are the plimsoll subcommands that generate load, and so take --local-workers.
var loadCommands = []string{"run", "limit"}

// withLocalWorkers adds --local-workers N (Env.LocalWorkers) to a load-generating command: at
// the end of run and limit, and at the end of the command compare runs after its "--". Other
// commands (cluster, model) and a scenario without workers are left as they are.
func (e *Env) withLocalWorkers(args []string) []string {
	if e.LocalWorkers == 0 || len(args) == 0 {
		return args
	}
	sub := args[0]
	if sub == "compare" {
		at := slices.Index(args, "--")
		if at < 0 || at+1 >= len(args) {
			return args
		}
		sub = args[at+1]
	}
	if !slices.Contains(loadCommands, sub) {
		return args
	}
	return append(slices.Clip(args), "--local-workers", strconv.Itoa(e.LocalWorkers))
}

// workerClients are, with --local-workers N, the flags giving a step N of each named client
// count (e.g. "producers", "consumers-per-group") so that every worker has one; nothing
// without workers, where the step keeps plimsoll's defaults. For steps whose measure does not
// depend on how many clients share the load (docs/scenarios.md says which).
func (e *Env) workerClients(flags ...string) []string {
	if e.LocalWorkers == 0 {
		return nil
	}
	var out []string
	for _, f := range flags {
		out = append(out, "--"+f, strconv.Itoa(e.LocalWorkers))
	}
	return out
}

// checkWorkerShare refuses --local-workers N when a step has fewer than N of what every worker
// needs one of (trial.RunWorkers, fleet.CheckWorkers: producers, partitions per topic, and
// consumers per group); have is how many, what names them, fix says which parameter to raise.
func checkWorkerShare(env *Env, have int, what, fix string) error {
	if n := env.LocalWorkers; n > have {
		return fmt.Errorf("--local-workers %d: the steps run %d %s, and every worker needs at least one: %s, or lower --local-workers to %d",
			n, have, what, fix, have)
	}
	return nil
}

// checkLoad refuses --local-workers below 0, and on a scenario that drives no load.
func checkLoad(s Scenario, env *Env) error {
	switch {
	case env.LocalWorkers < 0:
		return fmt.Errorf("--local-workers %d: give a number of workers, 1 or more, or leave it out", env.LocalWorkers)
	case env.LocalWorkers > 0 && !s.Load:
		return fmt.Errorf("--local-workers %d: scenario %s drives no load (no plimsoll run or limit: it talks to the cluster itself), so there is nothing to spread over workers; leave --local-workers out",
			env.LocalWorkers, s.Name)
	}
	return nil
}

// noteWorkers records in the result's configuration that its load was spread over workers.
func noteWorkers(res *results.Scenario, env *Env) {
	if env.LocalWorkers == 0 {
		return
	}
	if res.Config == nil {
		res.Config = map[string]string{}
	}
	res.Config["local workers"] = fmt.Sprintf("%d: each run and limit trial spread over %d plimsoll worker processes on this host, merged", env.LocalWorkers, env.LocalWorkers)
}

// defaultBrokers is the brokers of a cluster a scenario starts with plimsoll cluster up's
// default.
const defaultBrokers = 3

// checkDefaultPartitions refuses --local-workers N above the partitions per topic of a step that
// leaves them to plimsoll's default (10 a broker) on a cluster of brokers brokers.
func checkDefaultPartitions(env *Env, brokers int) error {
	return checkWorkerShare(env, workload.DefaultPartitionsPerBroker*max(brokers, 1), "partitions per topic (plimsoll's default, 10 a broker)",
		"run it on a cluster of more brokers")
}
