package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
)

// fixedClock returns a clock that starts at a fixed instant and ticks one second per call.
func fixedClock() func() time.Time {
	t := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

type trialData struct {
	Size    int      `json:"size"`
	Rate    float64  `json:"rate"`
	State   string   `json:"state"`
	Reasons []string `json:"reasons,omitempty"`
}

// writeSample writes the records of the golden file.
func writeSample(t testing.TB, path string) {
	t.Helper()
	w, err := Open(path, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	steps := []struct {
		kind, id string
		v        any
	}{
		{KindSearch, "", map[string]any{"sizes": []int{100, 1000}, "tolerance": 0.05}},
		{KindTrial, "100B@10000", trialData{Size: 100, Rate: 10000, State: "ok"}},
		{KindTrial, "100B@20000", trialData{Size: 100, Rate: 20000, State: "overloaded", Reasons: []string{"request handler idle < 20% on broker 2"}}},
		{KindBoundary, "100B", json.RawMessage(`{"size":100,"safe_rate":10000}`)},
		{"note", "", nil},
	}
	for _, s := range steps {
		if err := w.Append(s.kind, s.id, s.v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	writeSample(t, path)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "results.golden.jsonl")
	goldenfile.Check(t, golden, got)
	// The golden file itself must load cleanly and decode.
	recs, warns, err := Load(golden)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Load(golden) = %v, warnings %v", err, warns)
	}
	if len(recs) != 5 {
		t.Fatalf("got %d records, want 5", len(recs))
	}
	trials, err := DecodeAll[trialData](recs, KindTrial)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 2 || trials[1].Rate != 20000 || trials[1].State != "overloaded" || trials[1].Reasons[0] != "request handler idle < 20% on broker 2" {
		t.Errorf("trials = %+v", trials)
	}
	if recs[1].Pos != golden+":2" || recs[1].ID != "100B@10000" {
		t.Errorf("record 2: pos %q id %q", recs[1].Pos, recs[1].ID)
	}
	if len(recs[4].Data) != 0 {
		t.Errorf("nil payload stored as %s", recs[4].Data)
	}
	if want := time.Date(2025, 3, 1, 12, 0, 2, 0, time.UTC); !recs[1].Time.Equal(want) {
		t.Errorf("time = %v, want %v", recs[1].Time, want)
	}
}

const (
	good1 = `{"kind":"trial","schema":2,"time":"2025-03-01T12:00:01Z","id":"a","data":{"rate":1}}`
	good2 = `{"kind":"trial","schema":2,"time":"2025-03-01T12:00:02Z","id":"b","data":{"rate":2}}`
)

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int    // records
		warns   int    // warnings
		errLine int    // 0: no error
		errIs   error  // wrapped by the error
		errHas  string // in the message
	}{
		{name: "empty", in: "", n: 0},
		{name: "two", in: good1 + "\n" + good2 + "\n", n: 2},
		{name: "blank lines and CRLF", in: good1 + "\r\n\n  \n" + good2 + "\n", n: 2},
		{name: "last line whole but no newline", in: good1 + "\n" + good2, n: 2},
		{name: "torn last line", in: good1 + "\n" + good2[:40], n: 1, warns: 1},
		{name: "torn after one byte", in: good1 + "\n{", n: 1, warns: 1},
		{name: "corrupt middle", in: good1 + "\n" + good2[:40] + "\n" + good2 + "\n", errLine: 2, errIs: ErrCorrupt},
		{name: "corrupt last line with newline", in: good1 + "\n" + "garbage\n", errLine: 2, errIs: ErrCorrupt},
		{name: "two objects on a line", in: good1 + good2 + "\n", errLine: 1, errIs: ErrCorrupt},
		{name: "no kind", in: `{"schema":2,"time":"2025-03-01T12:00:01Z"}` + "\n", errLine: 1, errIs: ErrCorrupt, errHas: `no "kind"`},
		{name: "no schema", in: `{"kind":"x","time":"2025-03-01T12:00:01Z"}` + "\n", errLine: 1, errIs: ErrCorrupt, errHas: "schema"},
		{name: "no time", in: `{"kind":"x","schema":2}` + "\n", errLine: 1, errIs: ErrCorrupt, errHas: "time"},
		{name: "newer schema", in: good1 + "\n" + `{"kind":"x","schema":99,"time":"2025-03-01T12:00:01Z"}` + "\n", errLine: 2, errIs: ErrSchema, errHas: "upgrade"},
		{name: "newer schema on an unterminated last line", in: `{"kind":"x","schema":3,"time":"2025-03-01T12:00:01Z"}`, errLine: 1, errIs: ErrSchema},
		{name: "older schema", in: `{"kind":"trial","schema":1,"time":"2025-03-01T12:00:01Z","data":{"seq":1}}` + "\n", errLine: 1, errIs: ErrSchema,
			errHas: "schema 1: written by plimsoll at commit 5814fc7 or earlier; this plimsoll reads schema 2"},
		{name: "unknown envelope field ignored", in: `{"kind":"x","schema":2,"time":"2025-03-01T12:00:01Z","extra":true}` + "\n", n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, warns, err := Read(strings.NewReader(tt.in), "r.jsonl")
			if tt.errLine != 0 {
				var le *LineError
				if !errors.As(err, &le) || le.Line != tt.errLine || le.File != "r.jsonl" {
					t.Fatalf("err = %v, want a LineError at line %d", err, tt.errLine)
				}
				if !errors.Is(err, tt.errIs) {
					t.Errorf("err = %v, want it to wrap %v", err, tt.errIs)
				}
				if !strings.Contains(err.Error(), tt.errHas) || !strings.HasPrefix(err.Error(), "r.jsonl:") {
					t.Errorf("err = %q, want it to start with the file and contain %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tt.n || len(warns) != tt.warns {
				t.Fatalf("got %d records %d warnings (%v), want %d and %d", len(recs), len(warns), warns, tt.n, tt.warns)
			}
			for _, w := range warns {
				if !strings.Contains(w.String(), "torn last line") || w.File != "r.jsonl" {
					t.Errorf("warning %q", w)
				}
			}
		})
	}
}

// TestKillAtEveryByte simulates a kill at every byte of the last write: what survives loads with
// at most a warning, and a Writer opened afterwards repairs the file so appends continue cleanly.
func TestKillAtEveryByte(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl")
	writeSample(t, full)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	lastStart := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	for cut := lastStart; cut <= len(data); cut++ {
		path := filepath.Join(dir, "cut.jsonl")
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		recs, warns, err := Load(path)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		whole := cut >= len(data)-1 // the record is all there, maybe without its newline
		wantN, wantW := 4, 1
		switch {
		case whole:
			wantN, wantW = 5, 0
		case cut == lastStart:
			wantW = 0
		}
		if len(recs) != wantN || len(warns) != wantW {
			t.Fatalf("cut at %d: %d records %d warnings, want %d and %d", cut, len(recs), len(warns), wantN, wantW)
		}
		w, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if wantRep := int64(cut - lastStart); !whole && w.Repaired() != wantRep {
			t.Errorf("cut at %d: repaired %d bytes, want %d", cut, w.Repaired(), wantRep)
		}
		if err := w.Append("after", "", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		w.Close()
		recs, warns, err = Load(path)
		if err != nil || len(warns) != 0 {
			t.Fatalf("cut at %d: after repair: %v %v", cut, err, warns)
		}
		if len(recs) != wantN+1 || recs[len(recs)-1].Kind != "after" {
			t.Fatalf("cut at %d: after repair %d records, last %q", cut, len(recs), recs[len(recs)-1].Kind)
		}
	}
}

func TestOpenRefusesNewerTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	newer := `{"kind":"x","schema":9,"time":"2025-03-01T12:00:01Z"}`
	if err := os.WriteFile(path, []byte(good1+"\n"+newer), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrSchema) {
		t.Fatalf("Open = %v, want ErrSchema", err)
	}
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), newer) {
		t.Error("Open changed a newer plimsoll's record")
	}
}

func TestAppendFunc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "r.jsonl")
	for i := range 3 {
		if err := Append(path, KindRun, "", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	recs, _, err := Load(path)
	if err != nil || len(recs) != 3 {
		t.Fatalf("Load = %d records, %v", len(recs), err)
	}
	got, err := Decode[map[string]int](recs[2], KindRun)
	if err != nil || got["i"] != 2 {
		t.Fatalf("Decode = %v, %v", got, err)
	}
	if recs[0].Schema != Schema || recs[0].Time.IsZero() || recs[0].Time.Location() != time.UTC {
		t.Errorf("envelope %+v", recs[0])
	}
}

func TestErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if _, _, err := Load(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want os.ErrNotExist", err)
	}
	if err := Append(path, "", "", nil); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("empty kind: %v", err)
	}
	if err := Append(path, "x", "", json.RawMessage(`{bad`)); err == nil {
		t.Error("invalid raw JSON accepted")
	}
	if err := Append(path, "x", "", func() {}); err == nil {
		t.Error("unmarshallable value accepted")
	}
	if err := Append(path, KindTrial, "t1", map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	recs, _, err := Load(path)
	if err != nil || len(recs) != 1 {
		t.Fatalf("failed appends left records: %d, %v", len(recs), err)
	}
	if _, err := Decode[int](recs[0], KindBoundary); !errors.Is(err, ErrKind) {
		t.Errorf("Decode wrong kind = %v, want ErrKind", err)
	}
	if _, err := Decode[int](recs[0], KindTrial); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Errorf("Decode into the wrong type = %v, want an error naming %s:1", err, path)
	}
	if err := (Record{Kind: "x"}).Decode(new(int)); err == nil {
		t.Error("Decode of a record without data succeeded")
	}
	if got := Filter(recs, KindTrial); len(got) != 1 {
		t.Errorf("Filter = %d", len(got))
	}
}

func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	for range 1000 {
		buf.WriteString(good1 + "\n")
	}
	data := buf.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Read(bytes.NewReader(data), "b"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppend includes the fsync: it is the cost a trial pays to be durable.
func BenchmarkAppend(b *testing.B) {
	w, err := Open(filepath.Join(b.TempDir(), "r.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	v := trialData{Size: 1000, Rate: 12345.678, State: "ok", Reasons: []string{"all criteria met"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Append(KindTrial, "1000B@12345.678", v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOlderSchema: files written before schema 2 load or are refused with a message naming both
// schemas and the plimsoll that wrote them (testdata/schema1 holds files written by plimsoll at
// commit 5814fc7: a limit search's first records and a run's result.json, trimmed).
func TestOlderSchema(t *testing.T) {
	_, err := LoadSearch(filepath.Join("testdata", "schema1", "results.jsonl"))
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("LoadSearch(schema 1) = %v, want ErrSchema", err)
	}
	for _, want := range []string{"results.jsonl:1", "schema 1", "plimsoll at commit 5814fc7 or earlier", "reads schema 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// A run's result.json kept its shape: it loads.
	tr, err := LoadTrialDir(filepath.Join("testdata", "schema1", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.KafkaVersion != "4.1.0" || tr.Verdict.State != "overloaded" || tr.Counts.Acked == 0 || tr.TargetMsgsPerSec == 0 || tr.USE == nil {
		t.Errorf("schema 1 result.json lost figures: version %q, verdict %q, acked %d, target %v",
			tr.KafkaVersion, tr.Verdict.State, tr.Counts.Acked, tr.TargetMsgsPerSec)
	}
}

// TestTrialDirRoundTrip: what WriteTrialDir writes, LoadTrialDir reads back, schema included.
func TestTrialDirRoundTrip(t *testing.T) {
	old, err := LoadTrialDir(filepath.Join("testdata", "schema1", "run"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := WriteTrialDir(dir, old); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil || !bytes.Contains(raw, []byte(`"schema": 2`)) {
		t.Fatalf("result.json without its schema (%v):\n%.200s", err, raw)
	}
	back, err := LoadTrialDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(old)
	b, _ := json.Marshal(back)
	if !bytes.Equal(a, b) {
		t.Error("the trial changed through WriteTrialDir and LoadTrialDir")
	}
	for _, f := range []string{TimelineFile, HDRLogFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// A newer schema is refused.
	newer := bytes.Replace(raw, []byte(`"schema": 2`), []byte(`"schema": 3`), 1)
	if err := os.WriteFile(filepath.Join(dir, ResultFile), newer, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTrialDir(dir); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "upgrade plimsoll") {
		t.Errorf("LoadTrialDir(schema 3) = %v, want ErrSchema asking for an upgrade", err)
	}
}

func TestLoadSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := Open(path, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr := Trial{Step: &Step{Seq: 1, Size: 100, Rate: 5000, Phase: PhaseBracket, Attempt: 1}, KafkaVersion: "4.1.0"}
	tr.ProducedMsgsPerSec = 4990
	for _, r := range []struct {
		kind string
		v    any
	}{
		{KindSearch, Search{Sizes: []int{100}, Tolerance: 0.05, Config: &Config{Brokers: 3}}},
		{KindTrial, tr},
		{KindBoundary, Boundary{Size: 100, Ceiling: Limit{SafeRate: 5000}, Model: &Prediction{MsgsPerSec: 5500}}},
		{KindRecommendation, Recommendation{PerBrokerBytesPerSec: 1e5, Size: 100, Brokers: 3}},
		{"note", nil}, // kinds of other commands are skipped
	} {
		if err := w.Append(r.kind, "", r.v); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	sf, err := LoadSearch(path)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Header.Config.Brokers != 3 || len(sf.Trials) != 1 || sf.Trials[0].Step.Rate != 5000 || sf.Trials[0].ProducedMsgsPerSec != 4990 ||
		len(sf.Points) != 1 || sf.Points[0].Model.MsgsPerSec != 5500 || sf.Recommendation == nil || sf.Recommendation.Size != 100 ||
		!sf.Written.Equal(time.Date(2025, 3, 1, 12, 0, 1, 0, time.UTC)) {
		t.Errorf("LoadSearch = %+v", sf)
	}
	// A second header, or none, is refused.
	if err := Append(path, KindSearch, "", Search{}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSearch(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), ":6") {
		t.Errorf("two headers: %v", err)
	}
	none := filepath.Join(t.TempDir(), "results.jsonl")
	if err := Append(none, KindTrial, "", tr); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSearch(none); !errors.Is(err, ErrNoSearch) {
		t.Errorf("no header: %v", err)
	}
}
