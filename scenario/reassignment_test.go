package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/plimsoll/plimsoll/results"
)

// TestReassignmentOnFake runs the scenario on kfake, which accepts AlterPartitionReassignments
// but never applies it: the request must move every replica off the last broker, and the move
// that never shows in the metadata must end as a recorded failure at the timeout, not a crash,
// with the topics deleted after.
func TestReassignmentOnFake(t *testing.T) {
	res, _, fc, asked := reassignmentOn(t, map[string]string{"partitions": "30", "data": "0,64KB", "throttle": "1MB/s", "timeout": "300ms"})
	pts := res.Charts[0].Series[0].Points
	if len(pts) != 2 || pts[0].X != 0 || pts[1].X != 0.064 || len(res.Failures) != 2 || !strings.Contains(pts[0].Note, "did not show the change") {
		t.Fatalf("points %+v, failures %v: want two moves (empty, 64 KB), each failed as data", pts, res.Failures)
	}
	moves := 0
	for _, f := range res.Findings {
		if strings.Contains(f.Name, " partitions with ") {
			moves++
			if !strings.HasSuffix(f.Name, ": the move failed after") || f.Article != nil {
				t.Errorf("finding %+v: a failed move must say so, with no article figure beside it", f)
			}
		}
	}
	if moves != 2 {
		t.Errorf("%d findings of moves in %+v, want 2", moves, res.Findings)
	}
	if len(res.Charts[0].Series) != 1 {
		t.Errorf("series %+v: 002's figures are for 10,000 partitions only", res.Charts[0].Series)
	}
	if len(asked) != 2 {
		t.Fatalf("%d AlterPartitionReassignments requests, want 2", len(asked))
	}
	n := 0
	for _, rt := range asked[0].Topics {
		for _, rp := range rt.Partitions {
			n++
			if slices.Contains(rp.Replicas, 2) || len(rp.Replicas) != 2 {
				t.Errorf("%s/%d -> %v: want 2 replicas, none on broker 2", rt.Topic, rp.Partition, rp.Replicas)
			}
		}
	}
	if n < 10 { // rf 2 on 3 brokers puts about 20 of 30 partitions on each
		t.Errorf("%d partitions moved off broker 2, want about 20 of 30", n)
	}
	// Each move's topic is deleted before the next: the cluster held only the last one when its
	// health was checked.
	for _, f := range res.Findings {
		if strings.HasSuffix(f.Name, "healthy afterwards") && (f.Value != 1 || !strings.Contains(f.Text, "scenario's 30 partitions")) {
			t.Errorf("finding %+v: want healthy, with one move's topic (30 partitions) left", f)
		}
	}
	leftover(t, fc, "plimsoll-ra-")
}

// reassignmentOn runs reassignment in short mode with set on a kfake cluster given by
// --cluster-dir, keeping the AlterPartitionReassignments requests it was sent.
func reassignmentOn(t *testing.T, set map[string]string) (results.Scenario, *Env, *kfake.Cluster, []*kmsg.AlterPartitionAssignmentsRequest) {
	t.Helper()
	dir, fc := fakeCluster(t, 3)
	var asked []*kmsg.AlterPartitionAssignmentsRequest
	fc.ControlKey(kmsg.AlterPartitionAssignments.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		fc.KeepControl()
		asked = append(asked, r.(*kmsg.AlterPartitionAssignmentsRequest))
		return nil, nil, false
	})
	env, _ := clockEnv(t, dir)
	return executeOnFake(t, "reassignment", env, set), env, fc, asked
}

// reassignmentRun is the record the report's golden file shows (TestReportGolden): 002's 10,000
// partitions at rf 2, empty and with 64 KB, each move refused by the controller (a user without
// Alter on the cluster), so that it fails at once, at the same step whatever the machine's load.
// It used to let kfake leave each move unapplied until a 1 s timeout; on a loaded machine the
// creation of 10,000 partitions could outlast that timeout instead, which changed the record
// (which step failed, after how long, and the health seen afterwards).
func reassignmentRun(t *testing.T) (results.Scenario, *Env, *kfake.Cluster) {
	t.Helper()
	dir, fc := fakeCluster(t, 3)
	fc.ControlKey(kmsg.AlterPartitionAssignments.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		fc.KeepControl()
		resp := r.(*kmsg.AlterPartitionAssignmentsRequest).ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return resp, nil, true
	})
	env, _ := clockEnv(t, dir)
	return executeOnFake(t, "reassignment", env, map[string]string{"partitions": "10000", "data": "0,64KB", "timeout": "60s"}), env, fc
}

func TestOffBrokerPlan(t *testing.T) {
	dir, _ := fakeCluster(t, 4)
	env, _ := clockEnv(t, dir)
	a := newTestAdmin(t, env)
	if err := a.createTopic(context.Background(), a.topic("x"), 12, 3, nil); err != nil {
		t.Fatal(err)
	}
	plan, err := a.offBroker(context.Background(), a.topic("x"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) == 0 {
		t.Fatal("no partition had a replica on broker 3")
	}
	for p, rs := range plan {
		if slices.Contains(rs, 3) || len(rs) != 3 || rs[0] == rs[1] || rs[1] == rs[2] || rs[0] == rs[2] {
			t.Errorf("partition %d -> %v: want 3 distinct replicas, none on 3", p, rs)
		}
	}
}

// TestReassignmentFullTimeout: the full mode's 30-minute move timeout must not reach kgo's
// request timeout overhead, which it refuses above 15 minutes (the full run at 08:38 failed so).
func TestReassignmentFullTimeout(t *testing.T) {
	dir, _ := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	if _, err := newPartAdmin(context.Background(), []string{mustOpen(t, dir).Brokers[0].Address()}, "plimsoll-ra-x-", 30*time.Minute, env.Now); err != nil {
		t.Fatal(err)
	}
}

func TestReassignmentChecks(t *testing.T) {
	s, _ := Lookup("reassignment")
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"brokers": "2"}, "more brokers than rf"},
		{map[string]string{"data": "lots"}, "--set data=lots"},
		{map[string]string{"throttle": "fast"}, "--set throttle=fast"},
		{map[string]string{"data": "0,100TB"}, "of disk"},
	} {
		env, _ := clockEnv(t, "")
		if _, err := Execute(context.Background(), s, env, tc.set); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.set, err, tc.want)
		}
	}
}

// TestReassignAnswerLost: a request whose connection the broker closes before answering (a
// ZooKeeper controller's 10,000-partition move outlasted connections.max.idle.ms) is not the end
// of the move: reassign follows it until its time is up, and the failure then says both that the
// answer was lost and that the change never showed (kfake never applies a move).
func TestReassignAnswerLost(t *testing.T) {
	dir, fc := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	a := newTestAdmin(t, env)
	ctx := context.Background()
	name := a.topic("lost")
	if err := a.createTopic(ctx, name, 6, 2, nil); err != nil {
		t.Fatal(err)
	}
	plan, err := a.offBroker(ctx, name, 2)
	if err != nil {
		t.Fatal(err)
	}
	closed := 0
	fc.ControlKey(kmsg.AlterPartitionAssignments.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		fc.KeepControl()
		closed++
		return nil, errors.New("connection closed before the answer"), true
	})
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	note, err := a.reassign(wctx, name, plan, env.Now())
	waited := time.Since(start)
	if err == nil || note != "" || closed == 0 {
		t.Fatalf("note %q, error %v after %d closed connections: want a failure", note, err, closed)
	}
	for _, want := range []string{"the request's answer was lost after", "the move was followed to its end", "did not show the change"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q: want %q in it", err, want)
		}
	}
	if waited < 1500*time.Millisecond {
		t.Errorf("reassign gave up after %v: a lost answer must be followed until the move's time is up", waited)
	}
}

func TestLostAnswer(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{fmt.Errorf("wait: %w", os.ErrDeadlineExceeded), true},
		{kerr.ClusterAuthorizationFailed, false},
		{kerr.ReassignmentInProgress, false},
		{context.Canceled, false},
		{errors.New("unknown topic"), false},
	} {
		if got := lostAnswer(tc.err); got != tc.want {
			t.Errorf("lostAnswer(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestMoveFindingsNotes: a move that completed after its answer was lost keeps its time and
// 002's figure beside it; only a note starting "failed: " makes a failed move.
func TestMoveFindingsNotes(t *testing.T) {
	ch := results.Chart{Series: []results.Series{{Name: "ZooKeeper 3.9.1", Points: []results.Point{
		{X: 0, Y: 640, Note: "the request's answer was lost after 600 s (EOF); the move was followed to its end all the same"},
		{X: 1000, Y: 600, Note: "failed: AlterPartitionReassignments: unknown"},
	}}}}
	got := moveFindings(ch, movePlan{partitions: 10000, rf: 2})
	if len(got) != 2 {
		t.Fatalf("findings %+v, want 2", got)
	}
	if !strings.HasSuffix(got[0].Name, "moved off one broker") || got[0].Article == nil || !strings.Contains(got[0].Text, "answer was lost") {
		t.Errorf("finding %+v: want a move's time, 002's beside it, the note as its text", got[0])
	}
	if !strings.HasSuffix(got[1].Name, "the move failed after") || got[1].Article != nil || got[1].Text != "AlterPartitionReassignments: unknown" {
		t.Errorf("finding %+v: want a failed move", got[1])
	}
}

// TestRoomFor: dropPrevious waits for a deleted topic's files only when they and the next
// move's would pass limitShare of a broker's open-files limit, not whenever some are still open.
func TestRoomFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		now  []brokerFiles
		need uint64
		want bool
	}{
		{"files still open, far from the limit", []brokerFiles{{id: 1, limit: 1 << 20, open: 10_500}, {id: 2, limit: 1 << 20, open: 400}}, 10_000, true},
		{"the next move would pass 90% of one broker's limit", []brokerFiles{{id: 1, limit: 65_536, open: 400}, {id: 2, limit: 65_536, open: 50_000}}, 10_000, false},
		{"exactly at 90%", []brokerFiles{{id: 1, limit: 10_000, open: 1_000}}, 8_000, true},
		{"one file past it", []brokerFiles{{id: 1, limit: 10_000, open: 1_001}}, 8_000, false},
		{"no broker read", nil, 10_000, true},
	} {
		if got := roomFor(tc.now, tc.need); got != tc.want {
			t.Errorf("%s: roomFor %v", tc.name, got)
		}
	}
}
