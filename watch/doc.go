// Package watch observes a cluster under its own traffic, generating none: every interval it cuts
// the probe's samples since the previous interval and summarises them (Summarise) as an
// Interval: the USE table of every broker (package use), each broker's traffic from Kafka's own
// BrokerTopicMetrics, how far each resource is from its ceiling (Headroom: utilisation against
// the verdict's criteria and the capacities given), the busiest broker and why, and the
// capacity model's view of the same traffic (model.Against, as `plimsoll model --against` does
// for a stored run): which broker carries more than its share, and whether its share of the
// leaders' traffic explains it.
//
// Run drives the intervals on a Clock (injectable, so the interval logic is tested without
// sleeping) and hands each Interval to a callback; it never talks to Kafka itself: the probe
// does, and the probe only reads (metrics endpoints, /proc, Metadata requests for brokers only).
//
// It renders nothing for people: package report words an Interval.
package watch
