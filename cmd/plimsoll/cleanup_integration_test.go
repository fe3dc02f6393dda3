//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// cleanupUnderWay is how long after the first SIGINT the scenario must still be running: its
// clean-up has begun and is held by the paused broker (the health check alone waits 10 s for
// it), as the real run's was by a controller that did not answer.
const cleanupUnderWay = 3 * time.Second

// secondSignalExit bounds the time from the second SIGINT to the process's end: it quits at
// once, without waiting for anything; 5 s is a loaded host's scheduling, not a wait.
const secondSignalExit = 5 * time.Second

// TestScenarioSecondSignal interrupts partition-creation's short mode on the shared cluster with
// a broker paused (SIGSTOP), so that the clean-up the first SIGINT starts is held, and checks
// that a second SIGINT ends the process within secondSignalExit, exit 130, with a line naming
// the topics it leaves and how to delete them. The scenario is started with SIGINT ignored, as
// a script starts a background job: the real run that ignored its second SIGINT was one.
// The broker is resumed and the scenario's topics deleted afterwards, for the tests that follow.
func TestScenarioSecondSignal(t *testing.T) {
	c := up(t)
	began := time.Now()
	defer func() { t.Logf("%s without the cluster's start", time.Since(began).Round(time.Second)) }()
	adm, cl := admin(t, c.Bootstrap())
	const prefix = "plimsoll-pc-"
	bin := plimsollBinary(t)
	out := filepath.Join(t.TempDir(), "scenario")
	earlier := prefixedTopics(adm, prefix, 0)
	// sh's trap '' sets SIGINT ignored, and exec keeps it so for plimsoll.
	cmd := exec.Command("sh", "-c", `trap '' INT; exec "$0" "$@"`, bin, "scenario", "run", "partition-creation", "--mode", "short",
		"--cluster-dir", clusterDir, "--set", "clusters=kraft-"+c.KafkaVersion, "--out", out)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		cmd.Process.Kill()
		<-exited
		removeTopics(t, c, prefix)
	}()
	if len(newTopics(adm, prefix, earlier, 2*time.Minute)) == 0 {
		t.Fatalf("no %s* topic within 2 minutes:\n%s", prefix, log.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	controller, err := localkafka.ActiveController(ctx, cl)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	victim := c.Brokers[0].ID
	if victim == controller {
		victim = c.Brokers[1].ID
	}
	if err := c.Pause(victim); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Resume(victim); err != nil {
			t.Error(err)
		}
		if !waitFullISR(c, time.Minute) {
			t.Error("the paused broker did not rejoin every ISR within a minute")
		}
	}()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
		t.Fatalf("exit %d within %v of the first SIGINT: its clean-up was not held by the paused broker %d\n%s",
			cmd.ProcessState.ExitCode(), cleanupUnderWay, victim, log.String())
	case <-time.After(cleanupUnderWay):
	}
	second := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(secondSignalExit):
		t.Fatalf("still running %v after the second SIGINT:\n%s", secondSignalExit, log.String())
	}
	t.Logf("exited %s after the second SIGINT", time.Since(second).Round(100*time.Millisecond))
	if code := cmd.ProcessState.ExitCode(); code != ExitSIGINT {
		t.Errorf("exit %d after the second SIGINT, want %d\n%s", code, ExitSIGINT, log.String())
	}
	if !strings.Contains(log.String(), "plimsoll: second SIGINT: quitting at once") ||
		!strings.Contains(log.String(), "left behind: topics under "+prefix) || !strings.Contains(log.String(), "kafka-topics.sh") {
		t.Errorf("want a line naming the second SIGINT, the topics left and how to delete them:\n%s", log.String())
	}
}

// removeTopics deletes the topics starting with prefix and fails t when they are still listed
// 15 s after the cluster accepted their deletion. A listing or a deletion the cluster refuses
// (as it may just after a paused broker resumes) is tried again for up to 30 s, and reported.
func removeTopics(t *testing.T, c *localkafka.State, prefix string) {
	t.Helper()
	adm, cl := admin(t, c.Bootstrap())
	var errs []string
	for deadline, empty := time.Now().Add(30*time.Second), 0; ; time.Sleep(500 * time.Millisecond) {
		// Every broker's own listing, twice empty in a row: a broker just resumed from a pause
		// can list its metadata from before a topic created while it was paused, and one such
		// empty listing once left a scenario's topic for the next test to find
		// (TestInterruptAndPrefixSafety: "plimsoll-pc-...-warmup00 ... were there before it
		// started").
		names, err := listedByAny(cl, c, prefix)
		if err == nil && len(names) == 0 {
			if empty++; empty == 2 {
				return
			}
			continue
		}
		empty = 0
		if err == nil {
			err = deleteTopics(adm, names)
		}
		if err == nil {
			break
		}
		errs = append(errs, err.Error())
		if !time.Now().Before(deadline) {
			t.Errorf("deleting the topics under %s for 30 s: %v", prefix, errs)
			return
		}
	}
	if len(errs) > 0 {
		t.Logf("deleting the topics under %s took %d tries: %v", prefix, len(errs)+1, errs)
	}
	if left := stillListed(adm, prefix, 15*time.Second); len(left) > 0 {
		t.Errorf("topics %v still listed 15 s after deleting them (%s)", left, listedBy(cl, c, left))
	}
}

// listedByAny is the union of the topics under prefix that each broker of c lists in its own
// metadata; an error if a broker does not answer.
func listedByAny(cl *kgo.Client, c *localkafka.State, prefix string) ([]string, error) {
	var out []string
	for _, b := range c.Brokers {
		resp, err := brokerMetadata(cl, b.ID, nil)
		if err != nil {
			return nil, fmt.Errorf("broker %d: %w", b.ID, err)
		}
		for _, rt := range resp.Topics {
			if rt.ErrorCode == 0 && rt.Topic != nil && strings.HasPrefix(*rt.Topic, prefix) && !slices.Contains(out, *rt.Topic) {
				out = append(out, *rt.Topic)
			}
		}
	}
	return out, nil
}

// deleteTopics deletes names, failing on the request's error or any topic's.
func deleteTopics(adm *kadm.Client, names []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.DeleteTopics(ctx, names...)
	if err != nil {
		return err
	}
	return resp.Error()
}

// listedBy says, broker by broker, which of topics each one's metadata still lists (or its
// error): a broker whose metadata lags the controller's lists a deleted topic for a while.
func listedBy(cl *kgo.Client, c *localkafka.State, topics []string) string {
	var parts []string
	for _, b := range c.Brokers {
		resp, err := brokerMetadata(cl, b.ID, topics)
		if err != nil {
			parts = append(parts, fmt.Sprintf("broker %d: %v", b.ID, err))
			continue
		}
		var listed []string
		for _, rt := range resp.Topics {
			if rt.ErrorCode == 0 && rt.Topic != nil {
				listed = append(listed, fmt.Sprintf("%s (%d partitions)", *rt.Topic, len(rt.Partitions)))
			}
		}
		parts = append(parts, fmt.Sprintf("broker %d lists %v", b.ID, listed))
	}
	return strings.Join(parts, "; ")
}

// brokerMetadata is broker id's own Metadata answer for topics (nil: every topic).
func brokerMetadata(cl *kgo.Client, id int32, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return req.RequestWith(ctx, cl.Broker(int(id)))
}
