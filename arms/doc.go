// Package arms parses and checks the two sides of an A/B experiment (`plimsoll compare --a
// SPEC --b SPEC`): each arm is a list of key=value entries saying how its cluster and clients
// differ from the defaults (Kafka version, the JDK running the brokers, listener, SASL, broker
// heap and NIC, broker, producer and consumer properties, message size). Parse turns a spec into
// a typed Arm; Check verifies, before anything is started, that each value can be used (Maven
// resolves the Kafka version, the JDK's java runs and is new enough); ClusterOptions and
// ClientArgs say what the arm means for `plimsoll cluster up` and for the run or limit command.
package arms
