package topics

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestCheckPrefix is the one prefix rule. Until it was exported, plimsoll run's flag check and
// loadgen's own disagreed; the before columns record what each said, so every disagreement is
// a row here with the rule's answer.
func TestCheckPrefix(t *testing.T) {
	for _, tc := range []struct {
		prefix              string
		cliBefore, loadgenB bool // what run's validPrefix and loadgen's checkPrefix accepted
		ok                  bool
	}{
		{"a-", true, false, false},                           // too short for loadgen: the run failed after the cluster was set up
		{"abc", false, true, false},                          // no closing '-' or '.': takes in "abcd..." when deleting by prefix
		{"plimsoll_x", false, true, false},                   // likewise
		{strings.Repeat("a", 200) + "-", true, false, false}, // 201 characters
		{strings.Repeat("a", 199) + "-", true, true, true},   // 200 characters
		{"run.", true, true, true},
		{"plimsoll-1a2b3c4d-", true, true, true},
		{"plimsoll-s1-t3-", true, true, true},
		{"ab", false, false, false},
		{"a b-", false, false, false},
		{"plimsoll-é-", false, false, false},
		{"", false, false, false},
	} {
		err := CheckPrefix(tc.prefix)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrBadPrefix)) {
			t.Errorf("CheckPrefix(%q) = %v, want ok %v (run's flag check said %v, loadgen %v)", tc.prefix, err, tc.ok, tc.cliBefore, tc.loadgenB)
		}
	}
}

func TestNames(t *testing.T) {
	got := TopicNames("p-", 12)
	if len(got) != 12 || got[0] != "p-t00" || got[11] != "p-t11" {
		t.Errorf("TopicNames = %v", got)
	}
	if got := TopicNames("p-", 1); !slices.Equal(got, []string{"p-t0"}) {
		t.Errorf("one topic: %v", got)
	}
	if got := GroupNames("p-", 2); !slices.Equal(got, []string{"p-g0", "p-g1"}) {
		t.Errorf("GroupNames = %v", got)
	}
}
