// Package memtest holds what the soak and growth tests share to measure memory: the live heap
// after a collection.
package memtest
