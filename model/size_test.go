package model

import (
	"errors"
	"testing"
)

// Hand-computed: with P unknown the busiest of U survivors takes t x r/U in and t x (r-1+G)/U
// out (r capped at U); with P known, ceil(P/U) leaders and ceil(P(r-1)/U) followers.
func TestMinBrokersHandComputed(t *testing.T) {
	const mb = 1e6
	cases := []struct {
		name          string
		c             Cluster
		rate          float64
		up, down      map[Resource]int
		allUp, withDn int
		bottleneck    Resource
	}{
		// 900/N <= 100 -> 9; 600/N <= 100 -> 6; 900/N <= 320 -> 3. One down: N-1 >= 9 and 6; disk
		// write fits at N=3, its 2 survivors holding 2 replicas: 300 x 2/2 <= 320.
		{"rf3 1 down", Cluster{ReplicationFactor: 3, NIC: 125 * mb, DiskWrite: 400 * mb, BrokersDown: 1}, 300 * mb,
			map[Resource]int{NetworkIn: 9, NetworkOut: 6, DiskWrite: 3},
			map[Resource]int{NetworkIn: 10, NetworkOut: 7, DiskWrite: 3}, 9, 10, NetworkIn},
		// P=6, r=2: N=3..5 leave the busiest 2 leaders + 2 followers (200 MB/s in); N=6 one each.
		// Out is leaders x (r-1): 2 x 50 = 100 at N=3.
		{"6 partitions", Cluster{Partitions: 6, ReplicationFactor: 2, NIC: 100 * mb, MaxUtilization: 1}, 300 * mb,
			map[Resource]int{NetworkIn: 6, NetworkOut: 3}, nil, 6, 0, NetworkIn},
		// Two of r=3 down: N=3 leaves 1 (150 in), 4 leaves 2 (rf 2: 150), 5 leaves 3 (150);
		// then 450/(N-2) <= 100 -> 7. Out: N=3 leaves one broker, nothing replicated: 0.
		{"two down below rf", Cluster{ReplicationFactor: 3, NIC: 100 * mb, MaxUtilization: 1, BrokersDown: 2}, 150 * mb,
			map[Resource]int{NetworkIn: 5, NetworkOut: 3},
			map[Resource]int{NetworkIn: 7, NetworkOut: 3}, 5, 7, NetworkIn},
		// All up, out is 200/N <= 60 from N=4 and in 300/N from N=5. One down: N=4 (3 up) takes
		// 200/3 = 67 out, N=5 takes 50; in needs 300/(N-1) <= 60: N=6. A cluster must carry
		// the load all up before it loses a broker, so N=3 (2 up, rf 2: 50 out) does not count.
		{"floor of all up", Cluster{ReplicationFactor: 3, NIC: 60 * mb, MaxUtilization: 1, BrokersDown: 1}, 100 * mb,
			map[Resource]int{NetworkIn: 5, NetworkOut: 4},
			map[Resource]int{NetworkIn: 6, NetworkOut: 5}, 5, 6, NetworkIn},
		// Out is not monotonic below r survivors: with 2 of r=3 down, N=4 leaves 2 (rf 2) taking
		// 100 x 1/2 = 50 <= 60 out, N=5 leaves 3 taking 100 x 2/3 = 67, N=6 50 again: 4, which
		// the all-up floor (200/N <= 60: 4) allows. In: 100 at N=3..5, then 300/(N-2) <= 60: 7.
		{"out not monotonic", Cluster{ReplicationFactor: 3, NIC: 60 * mb, MaxUtilization: 1, BrokersDown: 2}, 100 * mb,
			map[Resource]int{NetworkIn: 5, NetworkOut: 4},
			map[Resource]int{NetworkIn: 7, NetworkOut: 4}, 5, 7, NetworkIn},
		// Lagging groups read from disk: L t/N = 2 x 400/N <= 0.8 x 100 -> 10.
		{"disk read", Cluster{ReplicationFactor: 1, LaggingConsumerGroups: 2, DiskRead: 100 * mb}, 400 * mb,
			map[Resource]int{DiskRead: 10}, nil, 10, 0, DiskRead},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := MinBrokers(tc.c, Traffic{ProduceBytesPerSec: tc.rate})
			if err != nil {
				t.Fatal(err)
			}
			checkCount(t, "all up", f.AllUp, tc.up, tc.allUp)
			if f.AllUp.Bottleneck != tc.bottleneck {
				t.Errorf("bottleneck %s, want %s", f.AllUp.Bottleneck, tc.bottleneck)
			}
			if (f.WithBrokersDown != nil) != (tc.down != nil) {
				t.Fatalf("with brokers down = %+v, want %v", f.WithBrokersDown, tc.down)
			}
			if tc.down != nil {
				checkCount(t, "down", *f.WithBrokersDown, tc.down, tc.withDn)
			}
		})
	}
}

func checkCount(t *testing.T, what string, got BrokerCount, want map[Resource]int, overall int) {
	t.Helper()
	if len(got.ByResource) != len(want) {
		t.Errorf("%s: by resource %v, want %v", what, got.ByResource, want)
	}
	for r, n := range want {
		if got.ByResource[r] != n {
			t.Errorf("%s: %s needs %d brokers, want %d", what, r, got.ByResource[r], n)
		}
	}
	if got.Brokers != overall {
		t.Errorf("%s: %d brokers overall, want %d", what, got.Brokers, overall)
	}
}

// The busiest survivor's load while brokers are down: 10 brokers, 1 down, rf 3, 300 MB/s:
// 9 survivors each lead 300/9 and follow 600/9.
func TestMinBrokersSurvivorLoad(t *testing.T) {
	f, err := MinBrokers(Cluster{ReplicationFactor: 3, NIC: 125e6, BrokersDown: 1}, Traffic{ProduceBytesPerSec: 300e6})
	if err != nil {
		t.Fatal(err)
	}
	b := f.WithBrokersDown.Busiest
	if !near(b.ProduceInBytesPerSec, 300e6/9, 1e-9) || !near(b.ReplicationInBytesPerSec, 600e6/9, 1e-9) ||
		!near(b.NetworkInBytesPerSec, 100e6, 1e-9) || !near(b.NetworkOutBytesPerSec, 600e6/9, 1e-9) {
		t.Errorf("busiest survivor %+v, want in 33.3+66.7 = 100 MB/s, out 66.7 MB/s", b)
	}
	if b := f.AllUp.Busiest; !near(b.NetworkInBytesPerSec, 100e6, 1e-9) { // 900/9
		t.Errorf("all up: busiest in %v, want 100 MB/s", b.NetworkInBytesPerSec)
	}
}

// A message rate is priced in wire bytes: 1000 msgs/s of v0 100-byte values is
// 1000 x (12 + 14 + 100) = 126 KB/s; rf 1 on a 126 KB/s NIC at 100% fits one broker, on a
// 125 KB/s NIC two.
func TestMinBrokersMessages(t *testing.T) {
	m := Message{PayloadBytes: 100, Format: FormatV0, BatchSize: 1}
	for _, tc := range []struct {
		nic  float64
		want int
	}{{126e3, 1}, {125e3, 2}} {
		f, err := MinBrokers(Cluster{ReplicationFactor: 1, NIC: tc.nic, MaxUtilization: 1}, Traffic{MessagesPerSec: 1000, Message: &m})
		if err != nil {
			t.Fatal(err)
		}
		if f.AllUp.Brokers != tc.want || f.ProduceBytesPerSec != 126e3 {
			t.Errorf("NIC %v: %d brokers for %v B/s, want %d for 126000", tc.nic, f.AllUp.Brokers, f.ProduceBytesPerSec, tc.want)
		}
	}
}

func TestMinBrokersErrors(t *testing.T) {
	cases := []struct {
		name  string
		c     Cluster
		t     Traffic
		field string
	}{
		{"no rate", Cluster{ReplicationFactor: 3, NIC: 1e9}, Traffic{}, "produce"},
		{"no rf", Cluster{NIC: 1e9}, Traffic{ProduceBytesPerSec: 1e6}, "replication-factor"},
		{"3 partitions never fit", Cluster{Partitions: 3, ReplicationFactor: 2, NIC: 100e6, MaxUtilization: 1}, Traffic{ProduceBytesPerSec: 300e6}, "partitions"},
		{"too many brokers", Cluster{ReplicationFactor: 1, NIC: 1}, Traffic{ProduceBytesPerSec: 1e12}, "produce"},
	}
	for _, tc := range cases {
		_, err := MinBrokers(tc.c, tc.t)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("%s: error %v, want an InputError on %s", tc.name, err, tc.field)
		}
	}
	if _, err := MinBrokers(Cluster{ReplicationFactor: 3}, Traffic{ProduceBytesPerSec: 1e6}); !errors.Is(err, ErrNoCapacity) {
		t.Errorf("no capacity: %v, want ErrNoCapacity", err)
	}
}
