package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/loadgen/topics"
)

// searchCluster is a kfake cluster holding one topic that is not the search's.
func searchCluster(t *testing.T) []kgo.Opt {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.MetadataMinAge(10 * time.Millisecond)}
}

// TestSearchFollow: a follower is handed each announced run once, the latest when it fell
// behind several, never one marked done (a follower arriving late), and the search's end once
// written; Close leaves only the foreign topic.
func TestSearchFollow(t *testing.T) {
	base := searchCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const id = "20261127t080000-ab12"
	s, err := OpenSearch(ctx, base, id, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Follow(ctx, base, id, Joining{Index: 0, Version: "test", Host: "h0"}, &clock{t: time.Now(), step: 10 * time.Millisecond}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	announce := func(runs ...string) {
		for _, r := range runs {
			if err := s.Announce(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	announce(id + "-t1")
	wantNext(t, ctx, f, id+"-t1")
	announce(id+"-t2", id+"-t3")
	wantNext(t, ctx, f, id+"-t3") // t2 was missed: the follower joins the trial that is open
	if err := s.Done(ctx, id+"-t3"); err != nil {
		t.Fatal(err)
	}
	late, err := Follow(ctx, base, id, Joining{Index: 1, Version: "test", Host: "h1"}, &clock{t: time.Now(), step: 10 * time.Millisecond}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	announce(id + "-t4")
	wantNext(t, ctx, late, id+"-t4") // arriving after t3 ended, it waits for t4 rather than join t3
	if _, err := OpenSearch(ctx, base, id, testLimits); !errors.Is(err, ErrPlan) {
		t.Errorf("a second search of one id: %v, want ErrPlan", err)
	}
	if err := s.Close(ctx, "the search found its limit"); err != nil {
		t.Fatal(err)
	}
	if run, err := f.Next(ctx); !errors.Is(err, ErrSearchOver) {
		t.Errorf("after the end: %q, %v; want ErrSearchOver", run, err)
	}
	onlyForeign(t, ctx, base)
}

// wantNext fails t unless f's next run is want.
func wantNext(t *testing.T, ctx context.Context, f *Follower, want string) {
	t.Helper()
	if run, err := f.Next(ctx); err != nil || run != want {
		t.Fatalf("next run %q, %v; want %q", run, err, want)
	}
}

// onlyForeign fails t unless the cluster holds the foreign topic alone.
func onlyForeign(t *testing.T, ctx context.Context, base []kgo.Opt) {
	t.Helper()
	cl, err := kgo.NewClient(base...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if names := td.Names(); len(names) != 1 || names[0] != "orders" {
		t.Errorf("topics left %v, want only orders", names)
	}
}

// TestSearchCoordinatorGone: a follower whose coordinator stopped writing (no heartbeat, no
// end) gives up after the silence limit of its clock, with nothing announced to join.
func TestSearchCoordinatorGone(t *testing.T) {
	base := searchCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const id = "20261127t080000-cd34"
	s, err := OpenSearch(ctx, base, id, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	s.stop() // the coordinator dies: no more heartbeats, no end
	<-s.beats
	defer s.cl.Close()
	f, err := Follow(ctx, base, id, Joining{Index: 0, Version: "test", Host: "h0"}, &clock{t: time.Now(), step: 100 * time.Millisecond}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if run, err := f.Next(ctx); !errors.Is(err, ErrCoordinatorGone) {
		t.Errorf("next run %q, %v; want ErrCoordinatorGone", run, err)
	}
}

// TestSearchBadInput: a bad search id, or one no coordinator opened, is a clear error, and
// following creates nothing.
func TestSearchBadInput(t *testing.T) {
	base := searchCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		id   string
		want error
	}{{"", ErrPlan}, {"bad id!", ErrPlan}, {"20261127t080000-ee56", ErrNoRun}} {
		_, err := Follow(ctx, base, tc.id, Joining{Index: 0, Version: "test", Host: "h0"}, &clock{t: time.Now(), step: 100 * time.Millisecond}, testLimits)
		if !errors.Is(err, tc.want) {
			t.Errorf("Follow(%q): %v, want %v", tc.id, err, tc.want)
		}
		if tc.want != ErrPlan {
			continue
		}
		if _, err := OpenSearch(ctx, base, tc.id, testLimits); !errors.Is(err, ErrPlan) {
			t.Errorf("OpenSearch(%q): %v, want ErrPlan", tc.id, err)
		}
	}
	onlyForeign(t, ctx, base)
}

// TestSearchAwaitFollowers: the coordinator waits for every index to arrive; one of another
// version, or an index out of range, is refused at once; one missing is named at the deadline.
func TestSearchAwaitFollowers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		arrive []Joining
		want   error
		text   string
	}{
		{"all", []Joining{{Index: 1, Version: "v1"}, {Index: 0, Version: "v1"}}, nil, ""},
		{"one missing", []Joining{{Index: 1, Version: "v1"}}, ErrMissing, "worker 0 of 2 never followed"},
		{"another version", []Joining{{Index: 0, Version: "v0", Host: "old"}}, ErrVersion, "worker 0 (host old) runs plimsoll v0, the coordinator v1"},
		{"index out of range", []Joining{{Index: 2, Version: "v1"}}, ErrPlan, "worker 2 (host ) follows a search of 2 workers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := searchCluster(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			const id = "20261127t080000-ef78"
			s, err := OpenSearch(ctx, base, id, testLimits)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(ctx, "test over")
			for _, j := range tc.arrive {
				f, err := Follow(ctx, base, id, j, &clock{t: time.Now(), step: 10 * time.Millisecond}, testLimits)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
			}
			err = s.AwaitFollowers(ctx, 2, "v1", &clock{t: time.Now(), step: 100 * time.Millisecond}, testLimits, time.Second)
			if tc.want == nil && err != nil || tc.want != nil && (!errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text)) {
				t.Errorf("%v; want %v saying %q", err, tc.want, tc.text)
			}
		})
	}
}

// TestSearchTopicDeleted: a follower that never read the end (busy with the last trial while the
// coordinator wrote it and deleted the topic) finds the topic gone once the heartbeats stop: the
// search is over, not its coordinator lost.
func TestSearchTopicDeleted(t *testing.T) {
	base := searchCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const id = "20261127t080000-ab90"
	s, err := OpenSearch(ctx, base, id, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Follow(ctx, base, id, Joining{Index: 0, Version: "test", Host: "h0"}, &clock{t: time.Now(), step: 100 * time.Millisecond}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.stop()
	<-s.beats
	defer s.cl.Close()
	if err := topics.DeleteOwned(ctx, s.adm, Prefix(id), []string{SearchTopic(id)}, nil); err != nil {
		t.Fatal(err)
	}
	if run, err := f.Next(ctx); !errors.Is(err, ErrSearchOver) || !strings.Contains(err.Error(), "was deleted") {
		t.Errorf("next run %q, %v; want ErrSearchOver, the topic deleted", run, err)
	}
}
