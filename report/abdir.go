package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/compare"
)

// ABCompareFile is the comparison the A/B driver writes in its directory (plimsoll compare --a/--b --out DIR); the manifest is arms.ManifestFile.
const ABCompareFile = "compare.json"

// ErrNoAB: a directory holds no A/B experiment (no manifest.json).
var ErrNoAB = errors.New("no A/B experiment")

// ABResults is an A/B experiment read back from its directory: what ran, the comparison the
// driver wrote, and each side's repetitions for the charts.
type ABResults struct {
	Dir        string
	Manifest   arms.Manifest
	Comparison *compare.Comparison
	A, B       compare.Side
}

// LoadAB reads the A/B experiment in dir: manifest.json, compare.json and every repetition
// the manifest lists. A directory without manifest.json gives ErrNoAB.
func LoadAB(dir string) (*ABResults, error) {
	r := &ABResults{Dir: dir}
	m, err := arms.ReadManifest(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w (no %s)", dir, ErrNoAB, arms.ManifestFile)
		}
		return nil, err
	}
	r.Manifest = *m
	doc := CompareDoc{Comparison: &compare.Comparison{}}
	if err := readJSON(filepath.Join(dir, ABCompareFile), &doc); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s not found: the experiment did not finish; compare its repetitions with plimsoll compare A1,A2 B1,B2", filepath.Join(dir, ABCompareFile))
		}
		return nil, err
	}
	r.Comparison = doc.Comparison
	var a, b []string
	for _, st := range r.Manifest.Order {
		loc := filepath.Join(dir, st.Dir)
		if st.Arm == "a" {
			a = append(a, loc)
		} else {
			b = append(b, loc)
		}
	}
	if r.A, err = compare.Load(a); err != nil {
		return nil, fmt.Errorf("arm A's results: %w", err)
	}
	if r.B, err = compare.Load(b); err != nil {
		return nil, fmt.Errorf("arm B's results: %w", err)
	}
	return r, nil
}

// readJSON decodes the JSON file at path into v, naming the file in any error.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
