package ledger

import "testing"

func TestSeqSet(t *testing.T) {
	var s SeqSet
	for _, seq := range []uint64{0, 63, 64, chunkBits - 1, chunkBits, 5 * chunkBits, 1 << 40} {
		if !s.Add(seq) || s.Add(seq) || !s.Has(seq) {
			t.Errorf("seq %d: add/has wrong", seq)
		}
	}
	if s.Has(1) || s.Has(1<<41) || s.Len() != 7 {
		t.Errorf("has(1)=%v has(2^41)=%v len=%d", s.Has(1), s.Has(1<<41), s.Len())
	}
}

func TestSeqSetReleasesFullChunks(t *testing.T) {
	var s SeqSet
	// Two partitions' worth interleaved, as a consumer sees them: chunks fill and are released.
	const n = 10 * chunkBits
	for i := uint64(0); i < n/2; i++ {
		s.Add(i)
		s.Add(n/2 + i)
	}
	live := 0
	for _, c := range s.chunks {
		if c != nil && c != fullChunk {
			live++
		}
	}
	if live != 0 || s.Len() != n {
		t.Errorf("%d chunks still allocated after filling them all; len %d", live, s.Len())
	}
	if len(s.spare) > 2 {
		t.Errorf("%d spare chunks; two consumers' positions need at most 2", len(s.spare))
	}
	if !s.Has(3*chunkBits+17) || s.Add(3*chunkBits+17) {
		t.Error("a released chunk must still report its members")
	}
}

func TestCountAbsent(t *testing.T) {
	var seen, failed SeqSet
	for i := uint64(0); i < 200; i++ {
		if i%10 != 0 {
			seen.Add(i)
		}
	}
	failed.Add(20)
	failed.Add(30)
	for i := uint64(chunkBits); i < 2*chunkBits; i++ {
		seen.Add(i) // a full chunk
	}
	for _, tc := range []struct {
		lo, hi uint64
		want   uint64
	}{
		{0, 200, 18},   // 0,10,...,190 minus the failed 20 and 30
		{0, 1, 1},      // just 0
		{1, 10, 0},     // all seen
		{15, 35, 0},    // 20 and 30 failed
		{15, 45, 1},    // 40
		{63, 130, 6},   // 70..120 across a word boundary
		{200, 210, 10}, // never seen
		{chunkBits - 5, chunkBits + 100, 5},
		{5, 5, 0},
	} {
		if got := CountAbsent(&seen, &failed, tc.lo, tc.hi); got != tc.want {
			t.Errorf("CountAbsent[%d,%d) = %d, want %d", tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := CountAbsent(&seen, nil, 0, 40); got != 4 {
		t.Errorf("without a failed set: %d, want 4", got)
	}
}
