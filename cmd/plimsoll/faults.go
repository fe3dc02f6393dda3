package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/workload"
)

// faultHelp is --fault's usage.
const faultHelp = "inject a fault into the local cluster during the measured window: `SPEC` is ACTION BROKER at DURATION for DURATION, ACTION kill (SIGKILL, then restart), stop (SIGSTOP, then SIGCONT) or cut (emulated NICs: link down, then up), times from the window's start, e.g. 'kill 2 at 20s for 15s' (repeatable)"

// faultPlan parses and checks the --fault specs before anything starts: their syntax, that the
// cluster is one plimsoll runs (the local cluster in dir, or a --bootstrap of its listeners),
// its brokers and links, and the run's window. The cluster is the one in dir, or the 3-broker
// loopback cluster `run` would start there.
func faultPlan(specs []string, spec workload.Spec, bootstrap, dir string) ([]fault.Spec, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	var plan []fault.Spec
	for _, s := range specs {
		sp, err := fault.Parse(s)
		if err != nil {
			return nil, usageErrf("--fault: %v", err)
		}
		plan = append(plan, sp)
	}
	if spec.BacklogBytes > 0 {
		return nil, usageErrf("--fault: not with a backlog workload (its measured window starts when the backlog is built, so fault times have no fixed start); leave out --fault or the backlog")
	}
	c, err := localkafka.Open(dir)
	switch {
	case errors.Is(err, localkafka.ErrNoCluster) && bootstrap == "":
		c = &localkafka.State{} // run starts the default cluster: brokers 1-3 on loopback
		for i := int32(1); i <= 3; i++ {
			c.Brokers = append(c.Brokers, &localkafka.Broker{ID: i})
		}
	case bootstrap != "" && (err != nil || !ownBootstrap(c, bootstrap)):
		return nil, usageErrf("--fault: plimsoll injects faults only into a local cluster it runs (`plimsoll cluster up`, named by --cluster-dir); --bootstrap %s is not one of that cluster's listeners: leave out --bootstrap, or --fault", bootstrap)
	case err != nil:
		return nil, clusterErr(err)
	}
	cl := fault.Cluster{NIC: c.NIC > 0}
	for _, b := range c.Brokers {
		cl.Brokers = append(cl.Brokers, b.ID)
	}
	if err := fault.Check(plan, cl, spec.Duration); err != nil {
		return nil, usageErrf("--fault: %v", err)
	}
	return plan, nil
}

// ownBootstrap reports whether every address of bootstrap is a listener of the local cluster c.
func ownBootstrap(c *localkafka.State, bootstrap string) bool {
	var own []string
	for _, b := range c.Brokers {
		own = append(own, b.Address())
	}
	for _, l := range c.SecureListeners() {
		own = append(own, strings.Split(l.Bootstrap, ",")...)
	}
	for _, a := range strings.Split(bootstrap, ",") {
		if !slices.Contains(own, strings.TrimSpace(a)) {
			return false
		}
	}
	return true
}

// faultTarget is the cluster the plan acts on once the target is resolved: the local cluster,
// or with --bootstrap the one in dir that faultPlan found it to belong to.
func faultTarget(w *trial.Where, dir string) (fault.Target, error) {
	if w.Local != nil {
		return w.Local, nil
	}
	c, err := localkafka.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("--fault: opening the local cluster in %s: %w", dir, err)
	}
	return c, nil
}
