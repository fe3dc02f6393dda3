package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzReadData: any data.json that ReadData accepts renders, as HTML and text, without an error
// or a panic, and no text in it can open a tag (everything a user wrote is escaped, in the
// tables and in the SVG legends alike).
func FuzzReadData(f *testing.F) {
	for _, d := range []Data{fullData(), remoteData(), {}} {
		b, err := json.Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"cpu_share":[{"who":"<script>x</script>","cores":1e6}],"host_cores":0.001}`))
	f.Add([]byte(`{"boundary":[{"size_bytes":1,"safe_msgs_per_sec":1e12,"unsafe_msgs_per_sec":1e-300,"safe_bytes_per_sec":0,"trials":0}]}`))
	f.Add([]byte(`{"model":[{"size_bytes":1073741824,"msgs_per_sec":1e-12,"bytes_per_sec":0}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadData(bytes.NewReader(in))
		if err != nil {
			return
		}
		var html, text bytes.Buffer
		if err := WriteHTML(&html, d); err != nil {
			t.Fatalf("WriteHTML of accepted data: %v", err)
		}
		if err := Text(&text, d); err != nil {
			t.Fatalf("Text of accepted data: %v", err)
		}
		if strings.Contains(strings.ToLower(html.String()), "<script") {
			t.Fatal("user text reached the page unescaped")
		}
	})
}
