package memtest

import "runtime"

// LiveHeap is the heap in use after a collection, bytes.
func LiveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
