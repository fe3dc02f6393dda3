// Package target says where plimsoll sends load: the bootstrap servers of a Kafka cluster, how to
// reach them (TLS, SASL), and where its brokers expose Prometheus metrics.
//
// A Target is plain data; ClientOpts turns it into franz-go client options. The local cluster
// (package localkafka) and a user's remote cluster both end up as a Target, so everything
// downstream treats them the same. Explain turns a first connection's failure into ErrAuth or
// ErrCertificate, with a message naming the setting involved.
package target
