// Package pace is a load generator's sense of time: the Clock every producer and consumer of a
// run shares, and the Pacer that fixes each producer's schedule up front.
//
// The Clock counts monotonic nanoseconds from the run's start. Producers stamp each message
// with its intended send time on it and the consumers, in the same process, read it to compute
// end-to-end latency, so one clock serves both sides and there is no skew. It is an interface
// so that tests (and simulations) can inject a clock that moves only when told.
//
// A Pacer says when message i of a producer is intended (Start + i/Rate, exactly, never
// drifting) and how many messages are due at a given time. It holds no timer: the producer
// wakes, asks what is due, sends it in one batch and sleeps until the next intended time.
// Latency is measured from the intended time, so a late producer still counts its wait
// (no coordinated omission).
package pace
