//go:build !integration

package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// deniedCluster is a kfake cluster with SASL and ACLs: "admin" a super user, "bench" allowed
// everything a run needs on topics and groups under plimsoll- except what is left out.
func deniedCluster(t *testing.T, leaveOut kmsg.ACLOperation) *kfake.Cluster {
	t.Helper()
	var acls []kfake.ACL
	for _, a := range []struct {
		res kmsg.ACLResourceType
		op  kmsg.ACLOperation
	}{
		{kmsg.ACLResourceTypeTopic, kmsg.ACLOperationCreate}, {kmsg.ACLResourceTypeTopic, kmsg.ACLOperationDescribe},
		{kmsg.ACLResourceTypeTopic, kmsg.ACLOperationDelete}, {kmsg.ACLResourceTypeTopic, kmsg.ACLOperationWrite},
		{kmsg.ACLResourceTypeTopic, kmsg.ACLOperationRead}, {kmsg.ACLResourceTypeGroup, kmsg.ACLOperationRead},
		{kmsg.ACLResourceTypeGroup, kmsg.ACLOperationDescribe}, {kmsg.ACLResourceTypeGroup, kmsg.ACLOperationDelete},
	} {
		if a.op != leaveOut {
			acls = append(acls, kfake.ACL{Resource: a.res, Name: "plimsoll-", Pattern: kmsg.ACLResourcePatternTypePrefixed, Operation: a.op, Allow: true})
		}
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("SCRAM-SHA-256", "admin", "admin"), kfake.User("SCRAM-SHA-256", "bench", "benchpw", acls...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestRunDenied: a cluster whose ACLs let the run's user do all a run needs but one thing:
// the run stops at the first refusal with exit 2, names it and the ACL to add, comes back within
// seconds and leaves no topic. The rows of docs/bad-input.md's table of refusing clusters.
func TestRunDenied(t *testing.T) {
	t.Setenv("PLIMSOLL_SASL_PASSWORD", "benchpw")
	var rows []string
	for _, tc := range []struct {
		what     string
		leaveOut kmsg.ACLOperation
		want     []string
	}{
		{"ACLs: no Write on plimsoll's topics (kfake)", kmsg.ACLOperationWrite, []string{"not authorized: writing to plimsoll-", "TOPIC_AUTHORIZATION_FAILED",
			"--allow-principal User:bench --operation Write --topic plimsoll- --resource-pattern-type prefixed"}},
		{"ACLs: no Create on plimsoll's topics (kfake)", kmsg.ACLOperationCreate, []string{"not authorized: cluster set-up failed: creating topic plimsoll-", "TOPIC_AUTHORIZATION_FAILED",
			"--allow-principal User:bench --operation Create --topic plimsoll- --resource-pattern-type prefixed"}},
	} {
		c := deniedCluster(t, tc.leaveOut)
		args := []string{"run", "--bootstrap", "KAFKA", "--sasl-mechanism", "scram-sha-256", "--sasl-user", "bench", "--rate", "100",
			"--duration", "2s", "--warmup", "0s", "--replication-factor", "1"}
		start := time.Now()
		_, stderr, code := runCLI(t, strings.Split(strings.ReplaceAll(strings.Join(args, "\x00"), "KAFKA", strings.Join(c.ListenAddrs(), ",")), "\x00")...)
		stderr = strings.ReplaceAll(stderr, strings.Join(c.ListenAddrs(), ","), "KAFKA")
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want %d\n%s", tc.what, code, ExitUsage, stderr)
		}
		for _, w := range append(tc.want, "nothing of the run is left") {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: the message lacks %q:\n%s", tc.what, w, stderr)
			}
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("%s: took %v", tc.what, took)
		}
		if ts, err := superAdmin(t, c).ListTopics(context.Background()); err != nil || len(ts) > 0 {
			t.Errorf("%s: topics left: %v (%v)", tc.what, ts.Names(), err)
		}
		rows = append(rows, docRow(badInput{what: tc.what, args: args}, runIDs.ReplaceAllString(errorLines(stderr), "plimsoll-RUNID-t0"), code))
	}
	if !t.Failed() {
		checkDocTable(t, filepath.Join("..", "..", "docs", "bad-input.md"), "TestRunDenied", rows)
	}
}

// runIDs matches the run-specific part of a topic name.
var runIDs = regexp.MustCompile(`plimsoll-[0-9]{8}t[0-9]{6}-[0-9a-f]{4}-t0`)

// superAdmin is an admin client of the cluster's super user.
func superAdmin(t *testing.T, c *kfake.Cluster) *kadm.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MetadataMinAge(100*time.Millisecond),
		kgo.SASL(scram.Auth{User: "admin", Pass: "admin"}.AsSha256Mechanism()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}
