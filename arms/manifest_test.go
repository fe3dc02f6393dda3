package arms

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		repeat int
		want   string
	}{{1, "a-1 b-1"}, {2, "a-1 b-1 b-2 a-2"}, {3, "a-1 b-1 b-2 a-2 a-3 b-3"}} {
		var got []string
		for _, st := range Order(tc.repeat) {
			got = append(got, st.Dir)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("Order(%d) = %v, want %s", tc.repeat, got, tc.want)
		}
	}
}

// TestManifestRoundTrip: what Write stores, ReadManifest gives back, and no temporary file is
// left; a directory without a manifest is fs.ErrNotExist.
func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadManifest(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("empty dir: %v, want fs.ErrNotExist", err)
	}
	b, err := Parse("--b", "kafka=3.9.1,producer:linger.ms=20")
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Command: "plimsoll compare ...", Mode: "run", B: b, ASpec: "defaults", BSpec: b.String(), Repeat: 2, Order: Order(2)}
	m.Order[0].Started = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	m.Order[0].Exit, m.Order[0].KafkaVersion, m.Order[0].JavaMajor = 3, "4.1.0", 17
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("read back %+v, want %+v", got, m)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != ManifestFile {
		t.Errorf("dir holds %v, want only %s", entries, ManifestFile)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), ManifestFile) {
		t.Errorf("torn manifest: %v, want an error naming %s", err, ManifestFile)
	}
}
