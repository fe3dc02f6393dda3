package compare

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plimsoll/plimsoll/omb"
)

// ombFixture is omb's recorded run and its export (omb/testdata).
const (
	ombRun  = "../omb/testdata/run"
	ombFile = "../omb/testdata/run.omb.golden.json"
)

// TestCompareOMBWithItsRun compares the OMB export of a run with the run itself, both ways: the
// run is cut into the same windows, so every figure is equal, tested over the 10-second windows,
// and the notes say what each side is.
func TestCompareOMBWithItsRun(t *testing.T) {
	for _, order := range [][2]string{{ombFile, ombRun}, {ombRun, ombFile}} {
		a, err := Load([]string{order[0]})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Load([]string{order[1]})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compare(a, b, DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		if c.Kind != KindOMB || c.Verdict != Same {
			t.Errorf("%v: kind %s, verdict %s; want omb, no difference", order, c.Kind, c.Verdict)
		}
		var names []string
		for _, f := range c.Figures {
			names = append(names, f.Name)
			if f.A != f.B || f.Basis != BasisWindows || f.N1 != 3 || f.N2 != 3 {
				t.Errorf("%v: %s: A %v B %v over %s (%d, %d); want equal, over 3 windows a side", order, f.Name, f.A, f.B, f.Basis, f.N1, f.N2)
			}
		}
		want := []string{"publish rate", "consume rate", "publish latency p50", "publish latency p99", "publish latency p99.9",
			"end-to-end latency p50", "end-to-end latency p99", "end-to-end latency p99.9"}
		if !slices.Equal(names, want) {
			t.Errorf("%v: figures %v, want %v", order, names, want)
		}
		var what []string
		for _, n := range c.Notes {
			what = append(what, n.What)
		}
		if !slices.Contains(what, NoteOMB) || !slices.Contains(what, NoteExported) {
			t.Errorf("%v: notes %v, want omb and exported", order, what)
		}
	}
}

// ombReps are n OMB results of the fixture's shape, each with its rates and latencies scaled.
func ombReps(t *testing.T, n int, rate, latency float64) Side {
	s := Side{Kind: KindOMB}
	for i := range n {
		r, err := omb.ReadFile(ombFile)
		if err != nil {
			t.Fatal(err)
		}
		wobble := 1 + 0.01*float64(i) // repetitions differ a little
		for _, series := range [][]float64{r.PublishRate, r.ConsumeRate} {
			for j := range series {
				series[j] *= rate * wobble
			}
		}
		for _, series := range [][]float64{r.PublishLatency99pct, r.EndToEndLatency99pct} {
			for j := range series {
				series[j] *= latency * wobble
			}
		}
		r.AggregatedPublishLatency99pct *= latency * wobble
		s.OMB = append(s.OMB, r)
		s.Locations = append(s.Locations, filepath.Join("omb", string(rune('a'+i))+".json"))
	}
	return s
}

// TestCompareOMBRepetitions: four files a side, B publishing 20% less with 30% more latency:
// tested over the repetitions, the rate decides (slower) and p99 is slower too.
func TestCompareOMBRepetitions(t *testing.T) {
	c, err := Compare(ombReps(t, 4, 1, 1), ombReps(t, 4, 0.8, 1.3), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Slower {
		t.Errorf("verdict %s, want slower", c.Verdict)
	}
	for _, f := range c.Figures {
		want := Same
		switch f.Name {
		case "publish rate", "consume rate", "publish latency p99":
			want = Slower
		}
		if f.Verdict != want || f.Basis != BasisRepetitions {
			t.Errorf("%s: %s over %s, want %s over repetitions", f.Name, f.Verdict, f.Basis, want)
		}
	}
}

func TestCompareOMBRefuses(t *testing.T) {
	a := ombReps(t, 1, 1, 1)
	b := ombReps(t, 1, 1, 1)
	b.OMB[0].MessageSize = 1024
	var we *WorkloadError
	if _, err := Compare(a, b, DefaultOptions); !errors.As(err, &we) || we.Diffs[0].Setting != "messageSize" {
		t.Errorf("different message sizes: %v, want a WorkloadError on messageSize", err)
	}
	if _, err := Compare(a, Side{Kind: KindSearch, Locations: []string{"lim"}}, DefaultOptions); !errors.Is(err, ErrOMBSearch) {
		t.Errorf("OMB vs a limit search: %v, want ErrOMBSearch", err)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, []byte(`{"name": "not a result"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{other}); !errors.Is(err, ErrNotKnown) || !errors.Is(err, omb.ErrNotOMB) {
		t.Errorf("a JSON of neither kind: %v, want ErrNotKnown and ErrNotOMB", err)
	}
	if _, err := Load([]string{ombFile, ombRun}); !errors.Is(err, ErrMixed) {
		t.Errorf("an OMB file and a run on one side: %v, want ErrMixed", err)
	}
}
