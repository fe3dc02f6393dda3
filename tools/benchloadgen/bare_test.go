package main

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBareOpts: the bare loop's client gets producerProps as plimsoll maps them (the same
// kafkaprops mapping, not a copy), with nothing left at franz-go's own defaults that Kafka's
// producer sets differently.
func TestBareOpts(t *testing.T) {
	opts, err := bareOpts("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, c := range []struct {
		name      string
		opt, want any
	}{
		{"acks", kgo.RequiredAcks, kgo.LeaderAck()},
		{"no idempotence", kgo.DisableIdempotentWrite, true},
		{"in flight", kgo.MaxProduceRequestsInflightPerBroker, 5},
		{"linger", kgo.ProducerLinger, 5 * time.Millisecond},
		{"batch", kgo.ProducerBatchMaxBytes, int32(16384)},
		{"buffered records", kgo.MaxBufferedRecords, int64(33554432/recordSize + 256)},
		{"delivery timeout", kgo.RecordDeliveryTimeout, 120 * time.Second},
		{"request timeout", kgo.ProduceRequestTimeout, 30 * time.Second},
	} {
		if got := cl.OptValue(c.opt); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
