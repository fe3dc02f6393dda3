package fleet

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestHostNotes: workers meant for separate machines that joined from one (the same boot id, or
// without one the same host name) are named, and so are workers on the local brokers' machine;
// local workers sharing this machine are not a note of their own, and an unknown host matches
// nothing.
func TestHostNotes(t *testing.T) {
	node := Host{"node-a", "b-1"}
	pods := map[int]Host{0: {"pod-0", "b-1"}, 1: {"pod-1", "b-2"}, 2: {"pod-2", "b-1"}, 3: {"", ""}, 4: {"", ""}}
	for _, tc := range []struct {
		name    string
		hosts   map[int]Host
		spread  bool
		brokers *Host
		want    []string
	}{
		{"spread over machines", map[int]Host{0: {"a", "b-1"}, 1: {"b", "b-2"}}, true, nil, nil},
		{"two pods on one node", pods, true, nil, []string{
			"workers 0, 2 ran on one machine (host pod-0, boot id b-1): they shared its CPUs, so the run generated less than 2 machines' load; start them on separate machines"}},
		{"no boot id: the host name", map[int]Host{0: {"h", ""}, 1: {"h", ""}, 2: {"i", ""}}, true, nil, []string{
			"workers 0, 1 ran on one machine (host h): they shared its CPUs, so the run generated less than 2 machines' load; start them on separate machines"}},
		{"local workers on one machine", pods, false, nil, nil},
		{"beside the local brokers", pods, false, &node, []string{
			"workers 0, 2 ran on the machine of the local brokers (host node-a, boot id b-1): they compete with the brokers for its CPUs"}},
		{"one beside them, and sharing", map[int]Host{0: {"x", "b-1"}, 1: {"y", "b-3"}, 2: {"z", "b-3"}}, true, &node, []string{
			"workers 1, 2 ran on one machine (host y, boot id b-3): they shared its CPUs, so the run generated less than 2 machines' load; start them on separate machines",
			"worker 0 ran on the machine of the local brokers (host node-a, boot id b-1): it competes with the brokers for its CPUs"}},
		{"brokers' machine unknown", pods, false, &Host{}, nil},
	} {
		if got := HostNotes(tc.hosts, tc.spread, tc.brokers); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: notes\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// TestReadBootID: the file's id without its newline; "" for a file that cannot be read or is
// too long to be one.
func TestReadBootID(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ name, path, want string }{
		{"an id", write("id", "82e4b25e-211f-45ea-a287-e580eff29522\n"), "82e4b25e-211f-45ea-a287-e580eff29522"},
		{"no file", filepath.Join(dir, "none"), ""},
		{"too long", write("long", string(make([]byte, 100))), ""},
	} {
		if got := ReadBootID(tc.path); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
