package report

import (
	"bytes"
	"errors"
	"fmt"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/internal/offline"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/workload"
)

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

func fixtures() []struct {
	name string
	d    *results.SearchFile
} {
	return []struct {
		name string
		d    *results.SearchFile
	}{
		{"full", fullSearch()},
		{"remote", remoteSearch()},
		{"empty", &results.SearchFile{}},
	}
}

func TestGolden(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			var html, text bytes.Buffer
			if err := WriteHTML(&html, f.d); err != nil {
				t.Fatal(err)
			}
			if err := Text(&text, f.d); err != nil {
				t.Fatal(err)
			}
			golden(t, f.name+".html", html.Bytes())
			golden(t, f.name+".txt", text.Bytes())
		})
	}
}

// externalRefs finds what would make a browser reach outside the page (package offline).
func externalRefs(html string) []string { return offline.ExternalRefs(html) }

func TestSelfContained(t *testing.T) {
	for _, f := range fixtures() {
		var b bytes.Buffer
		if err := WriteHTML(&b, f.d); err != nil {
			t.Fatal(err)
		}
		html := b.String()
		if bad := externalRefs(html); len(bad) != 0 {
			t.Errorf("%s: the page refers outside itself: %q", f.name, bad)
		}
		if strings.Contains(html, "<?xml") {
			t.Errorf("%s: an SVG kept its XML prolog, invalid inside HTML", f.name)
		}
		if n, ns := strings.Count(html, "<svg"), strings.Count(html, `xmlns="http://www.w3.org/2000/svg"`); n != ns {
			t.Errorf("%s: %d <svg> elements but %d SVG namespace declarations", f.name, n, ns)
		}
	}
}

func TestCharts(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, fullSearch()); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`aria-label="boundary in messages per second"`, `aria-label="boundary in MB per second"`,
		`aria-label="latency at the boundary"`, `aria-label="CPU share"`,
		">model: throughput ceiling</text>", ">within the SLO (ok)</text>", ">SLO missed</text>", ">ceiling (no latency SLO)</text>", ">model: predicted SLO limit</text>",
		">client-bound: a lower bound</text>", ">the limit lies in between</text>",
		">publish p99</text>", ">end-to-end p99.9</text>", ">plimsoll</text>", ">host cores</text>",
		">1 KB</text>", ">100 KB</text>", // log size axis labels
		"#1F5FA8", "#D05A4E", "#E08A00", // safe, overloaded, client-bound
		"font-family:'Liberation Sans',Arial,Helvetica,sans-serif;",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, `<svg class="chart"`); n != 4 {
		t.Errorf("%d charts, want 4 (boundary msgs/s, MB/s, latency, CPU)", n)
	}
	if strings.Contains(html, "font-family:Liberation Sans;") {
		t.Error("an SVG names only Liberation Sans, which most browsers lack")
	}

	// Without latencies or CPU figures only the two boundary charts are drawn.
	b.Reset()
	d := remoteSearch()
	d.Trials[0].Latency = loadgen.Latency{}
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), `<svg class="chart"`); n != 2 {
		t.Errorf("%d charts without latencies and CPU, want 2", n)
	}
}

func TestBoundaryPNG(t *testing.T) {
	var b bytes.Buffer
	if err := BoundaryPNG(&b, fullSearch()); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	if got := img.Bounds().Size(); got != (image.Point{X: 1800, Y: 504}) {
		t.Errorf("PNG is %v, want 1800x504", got)
	}
	// The markers are filled with these exact colours; anti-aliasing only touches their edges.
	for name, c := range map[string]color.RGBA{"safe": colSafe, "overloaded": colUnsafe, "client-bound": colClient, "band": colBand} {
		if n := countColour(img, c); n < 20 {
			t.Errorf("the PNG has %d pixels of the %s colour %v; the series is missing", n, name, c)
		}
	}

	// One size only: the log axes must still have a range (gonum panics on an empty one).
	b.Reset()
	if err := BoundaryPNG(&b, remoteSearch()); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Fatal(err)
	}
}

func countColour(img image.Image, want color.RGBA) int {
	n := 0
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) == want {
				n++
			}
		}
	}
	return n
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	d := fullSearch()
	if err := WriteDir(dir, d); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{htmlFile, pngFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, size %v", f, err, fi)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("WriteDir left %d files, want 2 (no temporary files)", len(entries))
	}
	// The page is the one WriteHTML renders.
	var again bytes.Buffer
	if err := WriteHTML(&again, d); err != nil {
		t.Fatal(err)
	}
	if first, _ := os.ReadFile(filepath.Join(dir, htmlFile)); !bytes.Equal(first, again.Bytes()) {
		t.Error("index.html differs from WriteHTML's page")
	}

	// Invalid data writes nothing.
	bad := filepath.Join(t.TempDir(), "bad")
	d.Points[0].Size = 0 // invalid
	if err := WriteDir(bad, d); !errors.Is(err, ErrInvalidData) {
		t.Errorf("WriteDir(invalid) = %v, want ErrInvalidData", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("WriteDir(invalid) created %s", bad)
	}
}

func TestDeterministic(t *testing.T) {
	// CPU figures are a map: many processes make an unsorted iteration all but certain to show.
	d := fullSearch()
	for i := range d.Trials {
		if d.Trials[i].CPU == nil {
			continue
		}
		for _, k := range []string{"broker 9", "zz", "a", "m", "b"} {
			d.Trials[i].CPU[k] = 0.1
		}
	}
	var first string
	for i := 0; i < 5; i++ {
		var b bytes.Buffer
		if err := WriteHTML(&b, d); err != nil {
			t.Fatal(err)
		}
		var tx bytes.Buffer
		if err := Text(&tx, d); err != nil {
			t.Fatal(err)
		}
		s := b.String() + tx.String()
		if i == 0 {
			first = s
		} else if s != first {
			t.Fatal("two renderings of the same data differ")
		}
	}
}

func TestInvalidDataRejected(t *testing.T) {
	d := fullSearch()
	d.Trials[2].Verdict.State = "maybe"
	for name, f := range map[string]func() error{
		"WriteHTML":   func() error { return WriteHTML(&bytes.Buffer{}, d) },
		"Text":        func() error { return Text(&bytes.Buffer{}, d) },
		"BoundaryPNG": func() error { return BoundaryPNG(&bytes.Buffer{}, d) },
	} {
		err := f()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "Trials[2].Verdict.State" {
			t.Errorf("%s: %v, want a FieldError on Trials[2].Verdict.State", name, err)
		}
	}
}

func ExampleText() {
	d := &results.SearchFile{
		Header: results.Search{Config: &results.Config{Brokers: 3, Spec: workload.Default()}},
		Points: []results.Boundary{{Size: 1000, Trials: 6, Ceiling: results.Limit{SafeRate: 60000, UnsafeRate: 66000, Bottleneck: "network in"}}},
	}
	if err := Text(os.Stdout, d); err != nil {
		fmt.Println(err)
	}
	// Output:
	// plimsoll limit
	// Results of unknown time
	//
	// This cluster sustains 20.0 MB/s per broker at 1 KB messages (60.0 MB/s, 60,000 msgs/s over 3
	// brokers); it overloaded at 66,000 msgs/s (bottleneck: network in).
	//
	// Boundary
	// size  sustained msgs/s  MB/s  overloaded at  bottleneck  trials  status
	// 1 KB            60,000  60.0         66,000  network in       6  found
	//
	// Trials
	// No trial recorded.
	//
	// Configuration
	// Kafka version
	// brokers                      3
	// topics x partitions          1 x 0
	// replication factor           0
	// min.insync.replicas          broker default
	// producers                    1
	// consumer groups x consumers  1 x 1
	// payload                      random
	// keys                         none
	// trial window                 1m0s after 10s warm-up
	// overload criteria            none (every criterion switched off)
	//
	// Environment
	// co-located                no
	// cluster                   remote cluster
	// host cores                0
	// emulated NIC              none (loopback)
	// brokers down planned for  0
}
