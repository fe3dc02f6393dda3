package results

import (
	"bytes"
	"encoding/json"
	"errors"
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
