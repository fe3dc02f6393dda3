package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/units"
)

// OMBExported says what `plimsoll export --format omb` wrote into dir: each file with the
// windows it holds and what its series leave out, and each trial it skipped with the reason.
func OMBExported(w io.Writer, dir string, files []omb.File) error {
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if f.Skipped != nil {
			if _, err := fmt.Fprintf(w, "skipped %s: %v\n", path, f.Skipped); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(w, "wrote %s: %s\n", path, coverage(f.Coverage)); err != nil {
			return err
		}
	}
	return nil
}

// coverage says what part of the measured window an export's series cover.
func coverage(c omb.Coverage) string {
	s := fmt.Sprintf("%s of %d s", units.Plural(c.Windows, "window"), omb.WindowSeconds)
	if c.LeftOutSeconds >= 0.5 {
		s += fmt.Sprintf("; the last %s s of the %s s measured are in the aggregates only (OMB's windows are all %d s)",
			units.Trim(math.Round(c.LeftOutSeconds)), units.Trim(math.Round(c.MeasuredSeconds)), omb.WindowSeconds)
	}
	if c.Aggregates == "intervals" {
		s += "; aggregates from the one-second histograms (this result keeps no merged histograms)"
	}
	return s
}
