package loadgen

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/plimsoll/plimsoll/workload"
)

func TestPayloadKinds(t *testing.T) {
	file := bytes.Repeat([]byte("0123456789abcdef"), 8)
	for _, tc := range []struct {
		name             string
		pl               workload.Payload
		size             int
		minRatio, maxRat float64
	}{
		{"random is incompressible", workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 1}, 1000, 0.95, 1.02},
		// The 24-byte stamp is structured (magic, small counters), so tiny messages compress a
		// little: about 1.18x at 100 B. PayloadInfo.DeflateRatio states it.
		{"random 100 B", workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 1}, 100, 1.05, 1.25},
		{"half random, half zeros", workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 0.5}, 1000, 1.6, 2.1},
		{"text compresses", workload.Payload{Kind: workload.PayloadText}, 1000, 2, 6},
		{"file repeats itself", workload.Payload{Kind: workload.PayloadFile, Data: file}, 0, 5, 1000},
	} {
		p, err := newPayloadPool(tc.pl, tc.size, 42)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r := p.info.DeflateRatio; r < tc.minRatio || r > tc.maxRat {
			t.Errorf("%s: deflate ratio %.2f, want %.2f..%.2f", tc.name, r, tc.minRatio, tc.maxRat)
		}
		want := tc.size
		if tc.pl.Kind == workload.PayloadFile {
			want = len(file)
		}
		if got := len(p.payload(12345)); got != want || p.info.Size != want {
			t.Errorf("%s: payload of %d bytes (info %d), want %d", tc.name, got, p.info.Size, want)
		}
	}
}

func TestPayloadPoolNeverRepeatsWithinABatch(t *testing.T) {
	p, err := newPayloadPool(workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 1, PoolSize: 10}, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	// A 1 MiB batch of 100 B records holds ~10,000 of them: all distinct despite PoolSize 10.
	seen := map[string]bool{}
	for i := range uint64(10_500) {
		s := string(p.payload(i))
		if seen[s] {
			t.Fatalf("payload %d repeats within 1 MiB of records", i)
		}
		seen[s] = true
	}
	if p.info.Distinct < 10_500 {
		t.Errorf("only %d distinct payloads", p.info.Distinct)
	}
}

func TestPayloadDeterministic(t *testing.T) {
	a, _ := newPayloadPool(workload.Payload{Kind: workload.PayloadText}, 200, 7)
	b, _ := newPayloadPool(workload.Payload{Kind: workload.PayloadText}, 200, 7)
	if !bytes.Equal(a.payload(99), b.payload(99)) {
		t.Error("same seed, different payloads")
	}
}

func TestPayloadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		pl   workload.Payload
		size int
	}{
		{"too small", workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 1}, StampSize - 1},
		{"short file", workload.Payload{Kind: workload.PayloadFile, Data: []byte("tiny"), Path: "x"}, 0},
		{"bad ratio", workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 2}, 100},
		{"bad kind", workload.Payload{Kind: 9}, 100},
	} {
		if _, err := newPayloadPool(tc.pl, tc.size, 1); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestKeySet(t *testing.T) {
	none, _ := newKeySet(workload.KeysNone, 0, 1)
	if none.size() != 0 || none.key(5, nil) != nil {
		t.Error("no-key mode produced a key")
	}
	rr, _ := newKeySet(workload.KeysRoundRobin, 3, 1)
	if rr.size() != 10 || !bytes.Equal(rr.key(0, nil), rr.key(3, nil)) || bytes.Equal(rr.key(0, nil), rr.key(1, nil)) {
		t.Errorf("round-robin keys %q %q %q", rr.key(0, nil), rr.key(1, nil), rr.key(3, nil))
	}
	rnd, _ := newKeySet(workload.KeysRandom, 0, 1)
	if len(rnd.keys) != workload.DefaultKeyCount {
		t.Errorf("%d random keys, want the default %d", len(rnd.keys), workload.DefaultKeyCount)
	}
	rng := rand.NewPCG(1, 2)
	distinct := map[string]bool{}
	for i := range uint64(100) {
		distinct[string(rnd.key(i, rng))] = true
	}
	if len(distinct) < 90 {
		t.Errorf("random keys: only %d distinct of 100 draws", len(distinct))
	}
	if _, err := newKeySet(workload.KeyMode(9), 0, 1); err == nil {
		t.Error("bad key mode accepted")
	}
}
