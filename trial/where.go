package trial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/target"
)

// Where is the cluster trials run against, resolved: a user's cluster (Target only) or the local
// cluster of package localkafka, opened or started for the purpose.
type Where struct {
	Target target.Target
	// Local is the local cluster's state; nil for a user's cluster.
	Local *localkafka.State
	// Started says Open started the local cluster; Release stops it again.
	Started bool
	// NIC and DiskWrite are each broker's capacities for the USE table, bytes/s; 0 when unknown.
	// With emulated NICs, NIC is their rate.
	NIC, DiskWrite float64
}

// ErrStopped is returned by OpenLocal for a local cluster that exists but is stopped.
var ErrStopped = errors.New("the local cluster is stopped")

// OpenLocal opens the local cluster in dir, starting one when there is none (Started is then
// true; it is warmed up, see Warm). Brokers that are not alive are reported on log; they do not stop the run.
func OpenLocal(ctx context.Context, dir string, log io.Writer) (*Where, error) {
	w := &Where{}
	c, err := localkafka.Open(dir)
	if errors.Is(err, localkafka.ErrNoCluster) {
		fmt.Fprintf(log, "no local cluster in %s: starting one (it is stopped again afterwards)\n", dir)
		c, err = localkafka.Up(ctx, localkafka.Options{Dir: dir, Log: log})
		w.Started = err == nil
	}
	if err != nil {
		return nil, err
	}
	if w.Started {
		w.Local, w.Target, w.NIC = c, c.Target(), c.NIC
		if err := WarmLocal(ctx, w, DefaultWarmJIT, log); err != nil {
			return nil, errors.Join(err, w.Release())
		}
	}
	return opened(w, c, dir, log)
}

// OpenRunning opens the local cluster in dir without ever starting one (for a command that
// only observes): localkafka.ErrNoCluster when there is none, ErrStopped when it is stopped.
func OpenRunning(dir string, log io.Writer) (*Where, error) {
	c, err := localkafka.Open(dir)
	if err != nil {
		return nil, err
	}
	return opened(&Where{}, c, dir, log)
}

// opened checks the local cluster c is running, warns of brokers that are not, and fills w.
func opened(w *Where, c *localkafka.State, dir string, log io.Writer) (*Where, error) {
	if c.Stopped {
		return nil, fmt.Errorf("%w: %s", ErrStopped, dir)
	}
	for _, b := range c.Status().Brokers {
		if !b.Alive {
			fmt.Fprintf(log, "warning: broker %d of the local cluster is %s\n", b.ID, b.State)
		}
	}
	w.Local, w.Target, w.NIC = c, c.Target(), c.NIC
	return w, nil
}

// LocalWhere is where a trial on the local cluster c runs, through its PLAINTEXT listener, with
// its emulated NICs' rate (if any) as each broker's NIC.
func LocalWhere(c *localkafka.State) *Where {
	return &Where{Local: c, Target: c.Target(), NIC: c.NIC}
}

// Remote checks a user's cluster and that it answers (see target.Target.Reach) before anything
// is created.
func Remote(ctx context.Context, t target.Target) (*Where, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if err := t.Reach(ctx); err != nil {
		return nil, err
	}
	return &Where{Target: t}, nil
}

// Release stops the local cluster if Open started it.
func (w *Where) Release() error {
	if w == nil || !w.Started || w.Local == nil {
		return nil
	}
	_, err := localkafka.Down(w.Local.Dir, false, 30*time.Second)
	return err
}

// KafkaVersion is the local cluster's release, or "" (trial.Run then asks the cluster).
func (w *Where) KafkaVersion() string {
	if w.Local != nil {
		return w.Local.KafkaVersion
	}
	return ""
}

// ProbeConfig is the probe's configuration for this cluster: the local brokers' JVMs, their
// request-handler pools, link capacities and link shapers (namespaces and interface names from
// the cluster's state), and the capacities given.
func (w *Where) ProbeConfig() probe.Config {
	c := probe.Config{NICBytesPerSec: w.NIC, DiskWriteBytesPerSec: w.DiskWrite}
	if w.Local == nil {
		return c
	}
	c.BrokerPIDs, c.HandlerPoolsByBroker = map[int32]int{}, map[int32]int{}
	for _, b := range w.Local.Brokers {
		if b.PID > 0 {
			c.BrokerPIDs[b.ID] = b.PID
		}
		// Combined broker+controller nodes mark the idle meter from two pools.
		c.HandlerPoolsByBroker[b.ID] = 1
		if b.Controller {
			c.HandlerPoolsByBroker[b.ID] = 2
		}
	}
	if w.Local.NIC > 0 {
		// Emulated NICs shape the brokers' links only; plimsoll's side (the bridge) is not
		// shaped, so the client host's capacity is its interfaces' own speed.
		c.NICBytesPerSec = 0
		c.NICByBroker, c.Links = map[int32]float64{}, map[int32]probe.Link{}
		for _, b := range w.Local.Brokers {
			c.NICByBroker[b.ID] = b.NIC
			if b.Netns != "" && b.HostIface != "" {
				// localkafka names the broker's end eth0 in its namespace.
				c.Links[b.ID] = probe.Link{Netns: b.Netns, Iface: "eth0", HostIface: b.HostIface}
			}
		}
	}
	return c
}
