package loadgen

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// recordPools hands franz-go the slices it decodes a fetch's record batches into
// (kgo.PoolRecords, kgo.PoolKRecords) and the buffers it decompresses them into
// (kgo.PoolDecompressBytes), and takes them back: a consumer whose client has these pools
// recycles every record once it is accounted (kgo.Record.Recycle), and the next fetch decodes
// into the same memory. Free lists under a mutex rather than sync.Pool: putting a slice into a
// sync.Pool boxes it, an allocation per batch. Each list keeps at most poolKeep slices.
type recordPools struct {
	mu    sync.Mutex
	recs  [][]kgo.Record
	krecs [][]kmsg.Record
	bytes [][]byte
}

func newRecordPools() *recordPools {
	return &recordPools{
		recs:  make([][]kgo.Record, 0, poolKeep),
		krecs: make([][]kmsg.Record, 0, poolKeep),
		bytes: make([][]byte, 0, poolKeep),
	}
}

// poolKeep bounds each free list: a fetch holds one slice per record batch until its records
// are recycled, so the lists hold about one fetch's batches.
const poolKeep = 256

// GetRecords implements kgo.PoolRecords.
func (p *recordPools) GetRecords(n int) []kgo.Record {
	p.mu.Lock()
	s := pop(&p.recs, n)
	p.mu.Unlock()
	if s == nil {
		s = sized[kgo.Record](n)
	}
	return s
}

// PutRecords implements kgo.PoolRecords.
func (p *recordPools) PutRecords(s []kgo.Record) { p.mu.Lock(); push(&p.recs, s); p.mu.Unlock() }

// GetKRecords implements kgo.PoolKRecords.
func (p *recordPools) GetKRecords(n int) []kmsg.Record {
	p.mu.Lock()
	s := pop(&p.krecs, n)
	p.mu.Unlock()
	if s == nil {
		s = sized[kmsg.Record](n)
	}
	return s
}

// PutKRecords implements kgo.PoolKRecords.
func (p *recordPools) PutKRecords(s []kmsg.Record) { p.mu.Lock(); push(&p.krecs, s); p.mu.Unlock() }

// GetDecompressBytes implements kgo.PoolDecompressBytes. It hands out the largest free buffer:
// the compressed size says little of the decompressed one (a ratio of 10 is common), and a
// buffer too small is grown by franz-go's codec, an allocation of the whole batch again (lz4 and
// gzip stream through bytes.Buffer.ReadFrom, which also wants 512 bytes to spare at the end).
// franz-go puts the grown buffer back, so the largest settles on the batches' decompressed size.
func (p *recordPools) GetDecompressBytes(compressed []byte, _ kgo.CompressionCodecType) []byte {
	p.mu.Lock()
	s := popLargest(&p.bytes)
	p.mu.Unlock()
	if s == nil {
		s = make([]byte, 0, max(64<<10, 8*len(compressed)))
	}
	return s
}

// PutDecompressBytes implements kgo.PoolDecompressBytes.
func (p *recordPools) PutDecompressBytes(s []byte) { p.mu.Lock(); push(&p.bytes, s); p.mu.Unlock() }

// pop takes the free slice that holds n with the least spare room, or returns nil.
func pop[E any](l *[][]E, n int) []E {
	best := -1
	for i, s := range *l {
		if cap(s) >= n && (best < 0 || cap(s) < cap((*l)[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	s := (*l)[best]
	k := len(*l) - 1
	(*l)[best], (*l)[k] = (*l)[k], nil
	*l = (*l)[:k]
	return s[:n]
}

// popLargest takes the free slice of the largest capacity, or returns nil.
func popLargest[E any](l *[][]E) []E {
	if len(*l) == 0 {
		return nil
	}
	best := 0
	for i, s := range *l {
		if cap(s) > cap((*l)[best]) {
			best = i
		}
	}
	s := (*l)[best]
	k := len(*l) - 1
	(*l)[best], (*l)[k] = (*l)[k], nil
	*l = (*l)[:k]
	return s
}

// push returns s to the free list; a full list keeps the larger of s and its smallest slice.
func push[E any](l *[][]E, s []E) {
	if len(*l) < cap(*l) {
		*l = append(*l, s[:0])
		return
	}
	small := 0
	for i, o := range *l {
		if cap(o) < cap((*l)[small]) {
			small = i
		}
	}
	if cap(s) > cap((*l)[small]) {
		(*l)[small] = s[:0]
	}
}

// sized is a new slice of length n whose capacity is n rounded up to a power of two (at least
// 64), so that the free lists converge on a few sizes however the batches vary.
func sized[E any](n int) []E {
	c := 64
	for c < n {
		c <<= 1
	}
	return make([]E, n, c)
}
