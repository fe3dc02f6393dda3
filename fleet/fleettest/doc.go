// Package fleettest is kfake-backed scaffolding for tests of the worker fleet: package fleet's
// own external tests, trial's RunWorkers and `plimsoll worker`. It holds only what two or more
// of those tests share, so that each sets up a fleet run on kfake the same way.
//
// kfake is for unit tests of client logic only: it answers the protocol without Kafka's
// storage, replication or timing, so nothing measured on it says anything about a cluster's
// performance. Tests against real Kafka are the integration tests (build tag integration).
package fleettest
