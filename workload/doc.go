// Package workload says what load plimsoll runs: the Spec (topics, producers, rate, message
// shape, consumers, window, Kafka client properties), read from plimsoll's own YAML, from an
// OpenMessaging Benchmark (OMB) workload YAML run unchanged (with an OMB Kafka driver YAML), or
// set field by field from command-line flags.
//
// One table of fields (Fields) serves both the YAML keys and the flags, so a file and a command
// line mean the same thing and fail the same way. Every error about input is a *FieldError that
// wraps ErrInvalid and names where the value came from (FILE:LINE, or the flag), the field as
// the user wrote it (including OMB's camelCase keys and Kafka property names) and the fix.
// Problems that do not stop a run (idle consumers, ignored properties, OMB semantics plimsoll
// does not share) are reported by Spec.Warnings.
//
// Kafka properties keep Kafka's own names (acks, linger.ms, ...) so users bring their
// .properties files as they are. Package kafkaprops, the one catalogue of them, checks each as
// it is read (an unknown name is an error with a did-you-mean, at its FILE:LINE or flag), and
// Validate resolves the whole configuration as the load generator will run it (Spec.Clients).
// The package does no I/O beyond reading the files it is given and imports no other plimsoll
// package but units and kafkaprops.
package workload
