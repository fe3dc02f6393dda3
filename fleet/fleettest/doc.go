// Package fleettest is kfake-backed scaffolding for tests of the worker fleet: package fleet's
// external tests, trial's RunWorkers and `plimsoll worker`. It holds only what two or more of
// those tests share, so that each sets up a fleet run on kfake the same way: a one-broker
// cluster (Cluster), a small workload two workers share (Spec), the run opened as the
// coordinator opens it (Open), in-process workers that join it and run their shares
// (StartWorkers), and the check that the cluster is left without a topic or group (NoneLeft,
// which cmd/plimsoll's other kfake tests use too).
//
// kfake is for unit tests of client logic only: it answers the protocol without Kafka's
// storage, replication or timing, so nothing measured on it says anything about a cluster's
// performance. Tests against real Kafka are the integration tests (build tag integration).
package fleettest
