package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestABHeaderAndNoiseFloor: the experiment's header names the arms, the order and an A/A
// check; the noise floor per figure is the farther of |change| and the interval's ends.
func TestABHeaderAndNoiseFloor(t *testing.T) {
	var b bytes.Buffer
	ABHeader(&b, ABExperiment{A: "defaults", B: "defaults", NoiseCheck: true, Mode: "run", Order: []string{"a-1", "b-1", "b-2", "a-2"}, Out: "ab"})
	c := slowerRuns()
	c.Figures[4].Needed = 4
	if err := NoiseFloor(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"A/B experiment (run), results in ab\n  arm A: defaults\n  arm B: defaults\n",
		"in this order: a-1 b-1 b-2 a-2\n",
		"this is an A/A noise check",
		"  produced                          ±12.1%\n", // the interval's far end beats |change| 10%
		"  CPU per message, broker 2         ±30%\n",
		"  broker traffic per message        ±8%\n", // no interval: |change|
		"tests over repetitions need --repeat 4 or more (at alpha 0.05)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
