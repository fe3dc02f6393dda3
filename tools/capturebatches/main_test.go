package main

import (
	"encoding/binary"
	"slices"
	"testing"
)

// batch returns a fake batch header: base offset, length, and the last offset delta at 23.
func batch(base int64, size int, lastDelta int32) []byte {
	b := make([]byte, size)
	binary.BigEndian.PutUint64(b, uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(size-12))
	binary.BigEndian.PutUint32(b[23:], uint32(lastDelta))
	return b
}

func TestBatchEndsAndLastOffset(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		ends []int
		last int64
	}{
		{"one", batch(0, 70, 4), []int{70}, 4},
		{"two", append(batch(0, 70, 4), batch(5, 80, 2)...), []int{70, 150}, 7},
		{"a cut tail", append(batch(0, 70, 4), batch(5, 80, 2)[:30]...), []int{70}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ends := batchEnds(c.b)
			if !slices.Equal(ends, c.ends) {
				t.Errorf("ends %v, want %v", ends, c.ends)
			}
			if got := lastOffset(c.b, ends); got != c.last {
				t.Errorf("last offset %d, want %d", got, c.last)
			}
		})
	}
}
