package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomCluster draws a valid cluster shape; partitions is 0 (unknown) a fifth of the time.
func randomCluster(rng *rand.Rand) Cluster {
	n := 1 + rng.IntN(60)
	c := Cluster{Brokers: n, ReplicationFactor: 1 + rng.IntN(min(n, 6)),
		ConsumerGroups: rng.IntN(6), LaggingConsumerGroups: rng.IntN(3)}
	if rng.IntN(5) > 0 {
		c.Partitions = 1 + rng.IntN(5000)
	}
	return c
}

// The brokers' loads add up to the cluster's, and the busiest broker carries the most.
func TestPropertyBrokersSumToCluster(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		c := randomCluster(rng)
		tp := 1e6 + rng.Float64()*1e9
		shares := BalancedShares(c.Brokers, c.Partitions, c.ReplicationFactor)
		var sum Load
		leaders, followers := 0, 0
		busiest := LoadFor(c, tp, BusiestShare(c.Brokers, c.Partitions, c.ReplicationFactor))
		for _, sh := range shares {
			l := LoadFor(c, tp, sh)
			sum.ProduceIn += l.ProduceIn
			sum.ReplicationIn += l.ReplicationIn
			sum.ReplicationOut += l.ReplicationOut
			sum.ConsumeOut += l.ConsumeOut
			sum.NetworkIn += l.NetworkIn
			sum.NetworkOut += l.NetworkOut
			sum.DiskWrite += l.DiskWrite
			sum.DiskRead += l.DiskRead
			leaders += sh.Leaders
			followers += sh.Followers
			for _, r := range Resources {
				if l.Of(r) > busiest.Of(r)*(1+1e-12) {
					t.Fatalf("%+v: a broker's %s %v exceeds the busiest's %v", c, r, l.Of(r), busiest.Of(r))
				}
			}
		}
		r, err := Evaluate(c, Traffic{ProduceBytesPerSec: tp}, Sizing{})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		rf, g, lg := float64(c.ReplicationFactor), float64(c.ConsumerGroups), float64(c.LaggingConsumerGroups)
		checks := []struct {
			name      string
			got, want float64
		}{
			{"produce in", sum.ProduceIn, tp},
			{"replication in = out", sum.ReplicationIn, sum.ReplicationOut},
			{"replication", sum.ReplicationIn, (rf - 1) * tp},
			{"consume out", sum.ConsumeOut, (g + lg) * tp},
			{"network in", sum.NetworkIn, *r.Cluster.NetworkInBytesPerSec},
			{"network out", sum.NetworkOut, *r.Cluster.NetworkOutBytesPerSec},
			{"disk write", sum.DiskWrite, *r.Cluster.DiskWriteBytesPerSec},
			{"disk read", sum.DiskRead, *r.Cluster.DiskReadBytesPerSec},
		}
		for _, ck := range checks {
			if !near(ck.got, ck.want, 1e-9) {
				t.Fatalf("%+v t=%v: %s: brokers sum to %v, cluster %v", c, tp, ck.name, ck.got, ck.want)
			}
		}
		if c.Partitions > 0 && (leaders != c.Partitions || followers != c.Partitions*(c.ReplicationFactor-1)) {
			t.Fatalf("%+v: %d leaders, %d followers assigned", c, leaders, followers)
		}
	}
}

// With no consumers, in/out per broker is r/(r-1) = 1 + 1/(r-1) once partitions spread evenly,
// and tends to it as partitions grow.
func TestPropertyInOutRatio(t *testing.T) {
	for r := 2; r <= 6; r++ {
		want := 1 + 1/float64(r-1)
		for _, n := range []int{r, 7, 12, 300} {
			if n < r {
				continue
			}
			c := Cluster{Brokers: n, ReplicationFactor: r}
			even := LoadFor(c, 1e8, BusiestShare(n, 0, r))
			if got := even.NetworkIn / even.NetworkOut; !near(got, want, 1e-12) {
				t.Errorf("rf %d, %d brokers, even spread: in/out = %v, want %v", r, n, got, want)
			}
			prevErr := math.Inf(1)
			for _, p := range []int{n + 1, 10*n + 1, 1000*n + 1} { // never a multiple of n
				c.Partitions = p
				l := LoadFor(c, 1e8, BusiestShare(n, p, r))
				gotErr := math.Abs(l.NetworkIn/l.NetworkOut - want)
				if gotErr > prevErr+1e-12 {
					t.Errorf("rf %d, %d brokers, %d partitions: |in/out - %v| = %v grew from %v", r, n, p, want, gotErr, prevErr)
				}
				prevErr = gotErr
			}
			if prevErr > 1e-3 {
				t.Errorf("rf %d, %d brokers: in/out still %v away from %v at %d partitions", r, n, prevErr, want, 1000*n+1)
			}
		}
	}
}

// At the ceiling the bottleneck is exactly at MaxUtilization and no resource is above it.
func TestPropertyCeilingIsTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		c := randomCluster(rng)
		c.NIC = 1e7 + rng.Float64()*1e10
		if rng.IntN(2) == 0 {
			c.DiskWrite = 1e7 + rng.Float64()*1e9
		}
		if rng.IntN(2) == 0 {
			c.DiskRead = 1e7 + rng.Float64()*1e9
		}
		c.MaxUtilization = 0.1 + 0.9*rng.Float64()
		c.BrokersDown = rng.IntN(c.Brokers)
		ceil, err := MaxProduce(c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		survivors := c
		survivors.Brokers, survivors.ReplicationFactor = ceil.Brokers, ceil.ReplicationFactor
		l := LoadFor(survivors, ceil.BytesPerSec, BusiestShare(ceil.Brokers, c.Partitions, ceil.ReplicationFactor))
		for _, r := range Resources {
			if capacity := c.Capacity(r); capacity > 0 {
				u := l.Of(r) / capacity
				if u > c.MaxUtilization*(1+1e-9) || (r == ceil.Bottleneck && !near(u, c.MaxUtilization, 1e-9)) {
					t.Fatalf("%+v: at the ceiling %s is at %v (bottleneck %s, max %v)", c, r, u, ceil.Bottleneck, c.MaxUtilization)
				}
			}
		}
		// Losing brokers never raises the ceiling while every replica still fits (capping the
		// replication factor moves less data, which may).
		if c.BrokersDown > 0 && ceil.ReplicationFactor == c.ReplicationFactor {
			all := c
			all.BrokersDown = 0
			full, err := MaxProduce(all)
			if err != nil {
				t.Fatal(err)
			}
			if ceil.BytesPerSec > full.BytesPerSec*(1+1e-12) {
				t.Fatalf("%+v: %v with brokers down > %v with all up", c, ceil.BytesPerSec, full.BytesPerSec)
			}
		}
	}
}

// Evaluate never panics; it either fails with an InputError/ErrNoCapacity or gives finite figures.
func FuzzEvaluate(f *testing.F) {
	f.Add(3, 3, 2, 0, 0, 300e6, 0.0, 125e6, 0.0, 0.0, 0.8, 0, 60e6)
	f.Add(300, 3000, 6, 5, 1, 0.0, 1.5e6, 0.0, 1e9, 1e9, 1.0, 2, 0.0)
	f.Add(1, 0, 1, 0, 0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0, 0.0)
	f.Fuzz(func(t *testing.T, n, p, r, g, l int, produce, msgs, nic, dw, dr, util float64, down int, limit float64) {
		m := Message{PayloadBytes: 100}
		res, err := Evaluate(
			Cluster{Brokers: n, Partitions: p, ReplicationFactor: r, ConsumerGroups: g, LaggingConsumerGroups: l,
				NIC: nic, DiskWrite: dw, DiskRead: dr, MaxUtilization: util, BrokersDown: down},
			Traffic{ProduceBytesPerSec: produce, MessagesPerSec: msgs, Message: &m}, Sizing{BrokerLimit: limit})
		if err != nil {
			return
		}
		if b := res.BusiestBroker; b != nil {
			for _, v := range []float64{b.NetworkInBytesPerSec, b.NetworkOutBytesPerSec, b.DiskWriteBytesPerSec, b.DiskReadBytesPerSec} {
				if v < 0 || math.IsNaN(v) {
					t.Fatalf("busiest broker %+v", b)
				}
			}
		}
		if res.MaxProduceBytesPerSec != nil && (*res.MaxProduceBytesPerSec <= 0 || math.IsNaN(*res.MaxProduceBytesPerSec)) {
			t.Fatalf("ceiling %v", *res.MaxProduceBytesPerSec)
		}
	})
}
