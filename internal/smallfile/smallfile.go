// Package smallfile reads the files people write for plimsoll (workloads, OMB driver files,
// .properties files, model inputs), refusing one over a bound rather than reading a device such
// as /dev/zero until memory runs out.
package smallfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is wrapped when a file holds more than the bound.
var ErrTooLarge = errors.New("too large")

// Read returns the contents of path, or an error wrapping ErrTooLarge when it holds more than
// limit bytes. Errors opening or reading it are the os package's.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}
