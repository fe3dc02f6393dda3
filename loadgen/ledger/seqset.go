package ledger

import "math/bits"

// Sequence sets are bitmaps in chunks of 64 Ki sequences (8 KiB). A chunk is allocated on the
// first sequence that falls in it; once every bit is set it goes back to a spare list and the
// slot points at the shared fullChunk marker. Consumers advance through a producer's sequence
// roughly in order (partitions only interleave it), so the live chunks span the consumers'
// lag, not the length of the run: a ten-minute run at 1M msg/s keeps a few chunks per
// producer, not 75 MB.
const (
	chunkShift = 16
	chunkBits  = 1 << chunkShift
	chunkWords = chunkBits / 64
)

type chunk struct {
	bits [chunkWords]uint64
	n    uint32
}

// fullChunk marks a chunk whose every sequence is present. It is never written.
var fullChunk = new(chunk)

// SeqSet is a set of uint64 sequence numbers. Not safe for concurrent use.
type SeqSet struct {
	chunks []*chunk
	spare  []*chunk
	n      uint64
}

// Add inserts seq and reports whether it was absent. Steady state allocates nothing: chunks
// are recycled and the index only grows by one pointer per 64 Ki sequences.
func (s *SeqSet) Add(seq uint64) bool {
	ci := seq >> chunkShift
	if ci >= uint64(len(s.chunks)) {
		s.grow(ci)
	}
	c := s.chunks[ci]
	if c == fullChunk {
		return false
	}
	if c == nil {
		c = s.newChunk()
		s.chunks[ci] = c
	}
	w, m := (seq&(chunkBits-1))>>6, uint64(1)<<(seq&63)
	if c.bits[w]&m != 0 {
		return false
	}
	c.bits[w] |= m
	c.n++
	s.n++
	if c.n == chunkBits {
		s.chunks[ci] = fullChunk
		c.bits, c.n = [chunkWords]uint64{}, 0
		s.spare = append(s.spare, c)
	}
	return true
}

func (s *SeqSet) grow(ci uint64) {
	need := int(ci) + 1
	if need <= cap(s.chunks) {
		s.chunks = s.chunks[:need]
		return
	}
	nc := make([]*chunk, need, 2*need)
	copy(nc, s.chunks)
	s.chunks = nc
}

func (s *SeqSet) newChunk() *chunk {
	if n := len(s.spare); n > 0 {
		c := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return c
	}
	return new(chunk)
}

// Has reports whether seq is in the set.
func (s *SeqSet) Has(seq uint64) bool {
	ci := seq >> chunkShift
	if ci >= uint64(len(s.chunks)) {
		return false
	}
	c := s.chunks[ci]
	if c == nil {
		return false
	}
	return c == fullChunk || c.bits[(seq&(chunkBits-1))>>6]&(1<<(seq&63)) != 0
}

// Len is the number of members.
func (s *SeqSet) Len() uint64 { return s.n }

// word returns the 64 membership bits of word w (sequences w*64 .. w*64+63).
func (s *SeqSet) word(w uint64) uint64 {
	ci := w / chunkWords
	if ci >= uint64(len(s.chunks)) {
		return 0
	}
	switch c := s.chunks[ci]; c {
	case nil:
		return 0
	case fullChunk:
		return ^uint64(0)
	default:
		return c.bits[w%chunkWords]
	}
}

// isFull reports whether chunk ci holds every sequence.
func (s *SeqSet) isFull(ci uint64) bool {
	return ci < uint64(len(s.chunks)) && s.chunks[ci] == fullChunk
}

// CountAbsent counts the sequences in [lo, hi) that are in neither a nor b (b may be nil).
// Used for the loss count: a = consumed by the group, b = failed at the producer.
func CountAbsent(a, b *SeqSet, lo, hi uint64) uint64 {
	var n uint64
	for lo < hi {
		ci := lo >> chunkShift
		end := min((ci+1)<<chunkShift, hi)
		if a.isFull(ci) || (b != nil && b.isFull(ci)) {
			lo = end
			continue
		}
		for lo < end {
			w := lo >> 6
			wend := min((w+1)<<6, end)
			// bits lo%64 .. wend-1 of word w
			mask := ^uint64(0) << (lo & 63)
			if wend&63 != 0 {
				mask &= ^(^uint64(0) << (wend & 63))
			}
			have := a.word(w)
			if b != nil {
				have |= b.word(w)
			}
			n += uint64(bits.OnesCount64(mask &^ have))
			lo = wend
		}
	}
	return n
}
