package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead: Read never panics; every error names a line and wraps ErrCorrupt or ErrSchema; what
// it accepts survives a write and a second read unchanged.
func FuzzRead(f *testing.F) {
	f.Add([]byte(good1 + "\n" + good2 + "\n"))
	f.Add([]byte(good1 + "\n" + good2[:30]))
	f.Add([]byte("\n\n" + good1))
	f.Add([]byte(`{"kind":"x","schema":3,"time":"2025-03-01T12:00:01Z"}`))
	f.Add([]byte(`{"kind":"x","schema":2,"time":"2025-03-01T12:00:01Z","data":null}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		recs, warns, err := Read(bytes.NewReader(in), "f")
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrSchema)) {
				t.Fatalf("error %v is not a LineError wrapping ErrCorrupt or ErrSchema", err)
			}
			return
		}
		if len(warns) > 1 {
			t.Fatalf("%d warnings: only the last line may be torn", len(warns))
		}
		var out bytes.Buffer
		for _, r := range recs {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("re-marshal %+v: %v", r, err)
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		again, warns2, err := Read(&out, "g")
		if err != nil || len(warns2) != 0 || len(again) != len(recs) {
			t.Fatalf("round trip: %d -> %d records, %v, %v", len(recs), len(again), warns2, err)
		}
		for i := range recs {
			a, b := recs[i], again[i]
			if a.Kind != b.Kind || a.Schema != b.Schema || a.ID != b.ID || !a.Time.Equal(b.Time) || !jsonEqual(a.Data, b.Data) {
				t.Fatalf("record %d changed: %+v -> %+v", i, a, b)
			}
		}
	})
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// FuzzLoadTrialDir: any result.json (and probe.json beside it) loads or is refused with an
// error naming the file; never a panic. What loads is written again by WriteTrialDir and reads
// back with the same run id and counts.
func FuzzLoadTrialDir(f *testing.F) {
	f.Add([]byte(`{"schema":2,"run_id":"r1","counts":{"acked":10,"consumed":10}}`), []byte(`{"samples":[]}`))
	f.Add([]byte(`{"run_id":"r1"}`), []byte(`{`))
	f.Add([]byte(`{"schema":3}`), []byte(nil))
	f.Add([]byte(`{"histograms":{"publish":{"enc":"x"}}}`), []byte(nil))
	f.Fuzz(func(t *testing.T, result, probeJSON []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultFile), result, 0o644); err != nil {
			t.Fatal(err)
		}
		if probeJSON != nil {
			if err := os.WriteFile(filepath.Join(dir, ProbeFile), probeJSON, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := LoadTrialDir(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		again := filepath.Join(t.TempDir(), "again")
		if err := WriteTrialDir(again, tr); err != nil {
			return // what JSON cannot hold again is refused, not written half
		}
		tr2, err := LoadTrialDir(again)
		if err != nil {
			t.Fatalf("a trial written by WriteTrialDir does not read back: %v", err)
		}
		if tr2.RunID != tr.RunID || tr2.Counts != tr.Counts {
			t.Fatalf("trial %s %+v read back as %s %+v", tr.RunID, tr.Counts, tr2.RunID, tr2.Counts)
		}
	})
}
