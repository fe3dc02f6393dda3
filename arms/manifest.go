package arms

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/plimsoll/plimsoll/results"
)

// ManifestFile is the name of an A/B experiment's manifest in its directory.
const ManifestFile = "manifest.json"

// Manifest is an A/B experiment's DIR/manifest.json: what the experiment was and how it ran.
// The driver (plimsoll compare --a/--b) rewrites it after every repetition; the report reads it.
type Manifest struct {
	Command    string `json:"command"`
	Mode       string `json:"mode"` // run or limit
	A          Arm    `json:"a"`
	B          Arm    `json:"b"`
	ASpec      string `json:"a_spec"`
	BSpec      string `json:"b_spec"`
	NoiseCheck bool   `json:"aa_noise_check"`
	Remote     bool   `json:"remote"`
	Repeat     int    `json:"repeat"`
	Order      []Step `json:"order"`
	// Compare is the comparison's file (compare.json) once written, Verdict its verdict.
	Compare string `json:"compare,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// Step is one repetition of one arm, in the order the driver ran them.
type Step struct {
	Arm          string `json:"arm"` // a or b
	Rep          int    `json:"rep"`
	Dir          string `json:"dir"` // relative to the experiment's directory
	KafkaVersion string `json:"kafka_version,omitempty"`
	Java         string `json:"java,omitempty"`
	// JavaMajor is the major version `java -version` reported (17, 25, ...).
	JavaMajor int       `json:"java_major,omitempty"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	// Exit is the command's exit code: 0, 3 (overloaded) or 4 (invalid) keep the results.
	Exit  int    `json:"exit"`
	Error string `json:"error,omitempty"`
}

// Order interleaves the arms so drift of the machine cancels: A B, B A, A B, ...
func Order(repeat int) []Step {
	var steps []Step
	for r := 1; r <= repeat; r++ {
		first, second := "a", "b"
		if r%2 == 0 {
			first, second = "b", "a"
		}
		for _, arm := range []string{first, second} {
			steps = append(steps, Step{Arm: arm, Rep: r, Dir: fmt.Sprintf("%s-%d", arm, r)})
		}
	}
	return steps
}

// Write stores the manifest in dir, through a temporary file renamed into place.
func (m *Manifest) Write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, ManifestFile), append(data, '\n'))
}

// ReadManifest reads dir's manifest; an error wrapping fs.ErrNotExist when there is none.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, nil
}
