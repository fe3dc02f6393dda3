package spill

import "iter"

// Tail is a sequence of values of which memory holds the latest Keep: once more are held, the
// oldest is appended to a File in Dir (opened the first time, named after Pattern) and dropped
// from memory. With Dir empty every value is held. All reads the spilled values back, then those
// held. A spill that cannot be written is reported once by Add, and the values from then on are
// held in memory.
type Tail[T any] struct {
	Dir, Pattern string
	Keep         int
	// Held are the values in memory: all of them, or those after the spilled ones.
	Held []T

	file   *File[T]
	size   int64 // bytes of the file holding values
	n      int   // values in the file
	failed bool
}

// Add appends v, spilling the oldest value held when more than Keep are.
func (t *Tail[T]) Add(v T) error {
	t.Held = append(t.Held, v)
	if t.Dir == "" || t.failed || len(t.Held) <= max(t.Keep, 0) {
		return nil
	}
	if err := t.spillOldest(); err != nil {
		t.failed = true
		return err
	}
	return nil
}

// spillOldest appends the oldest value held to the file and drops it from memory. The slice
// moves past it rather than shifting the others down, so a value costs no copy of the rest;
// append reallocates the slice now and then, which keeps it within twice Keep.
func (t *Tail[T]) spillOldest() error {
	if t.file == nil {
		f, err := Open[T](t.Dir, t.Pattern)
		if err != nil {
			return err
		}
		t.file = f
	}
	size, err := t.file.Append(t.Held[0])
	if err != nil {
		return err
	}
	t.size, t.n = size, t.n+1
	var zero T
	t.Held[0] = zero
	t.Held = t.Held[1:]
	return nil
}

// All yields every value in the order added: the spilled ones read back, then those held. A
// file that cannot be read back ends the sequence early; Err says so.
func (t *Tail[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		if t.file != nil {
			for v := range t.file.Read(0, t.size) {
				if !yield(v) {
					return
				}
			}
		}
		for _, v := range t.Held {
			if !yield(v) {
				return
			}
		}
	}
}

// Len is the number of values All yields.
func (t *Tail[T]) Len() int { return t.n + len(t.Held) }

// Spilled is the number of values in the file.
func (t *Tail[T]) Spilled() int { return t.n }

// Err is the first error reading the spilled values back.
func (t *Tail[T]) Err() error {
	if t.file == nil {
		return nil
	}
	return t.file.Err()
}

// Close releases the file, if any; afterwards only the values held are yielded (and Len still
// counts the spilled ones, which now read as an error).
func (t *Tail[T]) Close() error {
	if t.file == nil {
		return nil
	}
	return t.file.Close()
}
