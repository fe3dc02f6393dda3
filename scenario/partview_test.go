package scenario

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataOf is a Metadata response of one topic whose partitions have the given leaders and
// replicas (a leader of -1: none yet).
func metadataOf(topic string, leaders []int32, replicas [][]int32) *kmsg.MetadataResponse {
	r := kmsg.NewPtrMetadataResponse()
	t := kmsg.NewMetadataResponseTopic()
	t.Topic = kmsg.StringPtr(topic)
	for i, l := range leaders {
		p := kmsg.NewMetadataResponseTopicPartition()
		p.Partition, p.Leader, p.Replicas, p.ISR = int32(i), l, replicas[i], replicas[i]
		t.Partitions = append(t.Partitions, p)
	}
	r.Topics = append(r.Topics, t)
	return r
}

// logDirsOf is a DescribeLogDirs response: each directory's error code and the partitions of
// topic it lists.
func logDirsOf(topic string, dirs map[string]int16, parts map[string][]int32) *kmsg.DescribeLogDirsResponse {
	r := kmsg.NewPtrDescribeLogDirsResponse()
	for name, code := range dirs {
		d := kmsg.NewDescribeLogDirsResponseDir()
		d.Dir, d.ErrorCode = name, code
		t := kmsg.NewDescribeLogDirsResponseDirTopic()
		t.Topic = topic
		for _, p := range parts[name] {
			rp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
			rp.Partition = p
			t.Partitions = append(t.Partitions, rp)
		}
		d.Topics = append(d.Topics, t)
		r.Dirs = append(r.Dirs, d)
	}
	return r
}

// TestViewOfMetadata: a broker's view counts the led partitions, and its own replicas among
// them only (a partition with no leader yet is not waited on for its log).
func TestViewOfMetadata(t *testing.T) {
	md := metadataOf("plimsoll-pc-t", []int32{1, 2, -1, 3}, [][]int32{{1, 2}, {2, 3}, {1}, {3, 1}})
	for _, tc := range []struct {
		id        int32
		led, mine int
	}{{1, 3, 2}, {2, 3, 2}, {3, 3, 2}, {4, 3, 0}} {
		v, ours := viewOfMetadata(md, tc.id)
		if v.led != tc.led || countReplicas(ours) != tc.mine {
			t.Errorf("broker %d: led %d, own replicas %d (%v): want %d and %d", tc.id, v.led, countReplicas(ours), ours, tc.led, tc.mine)
		}
	}
}

// TestCountLogs: each of the broker's partitions counts once, whichever directory holds it, and
// a directory that failed to answer or a partition not its own counts for nothing.
func TestCountLogs(t *testing.T) {
	ours := map[string][]int32{"plimsoll-pc-t": {0, 1, 3}}
	for _, tc := range []struct {
		name  string
		dirs  map[string]int16
		parts map[string][]int32
		want  int
	}{
		{"none yet", map[string]int16{"/d1": 0}, nil, 0},
		{"some", map[string]int16{"/d1": 0}, map[string][]int32{"/d1": {0, 3}}, 2},
		{"all over two dirs", map[string]int16{"/d1": 0, "/d2": 0}, map[string][]int32{"/d1": {0}, "/d2": {1, 3}}, 3},
		{"moving: in both", map[string]int16{"/d1": 0, "/d2": 0}, map[string][]int32{"/d1": {0, 1}, "/d2": {1}}, 2},
		{"not ours", map[string]int16{"/d1": 0}, map[string][]int32{"/d1": {2, 4}}, 0},
		{"dir failed", map[string]int16{"/d1": 57, "/d2": 0}, map[string][]int32{"/d1": {0, 1}, "/d2": {3}}, 1},
	} {
		if got := countLogs(logDirsOf("plimsoll-pc-t", tc.dirs, tc.parts), ours); got != tc.want {
			t.Errorf("%s: %d logs, want %d", tc.name, got, tc.want)
		}
	}
}

// TestCreatedAtLeast: created means led and every own replica's log made.
func TestCreatedAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v    brokerView
		want bool
	}{
		{brokerView{led: 100, mine: 34, logs: 34}, true},
		{brokerView{led: 100, mine: 34, logs: 33}, false},
		{brokerView{led: 99, mine: 34, logs: 34}, false},
		{brokerView{led: 100}, true},
	} {
		test := createdAtLeast(100)
		if !test.logs || test.ok(tc.v) != tc.want {
			t.Errorf("%+v: logs %v, ok %v, want %v", tc.v, test.logs, test.ok(tc.v), tc.want)
		}
	}
}
