// Package kafkaprops is plimsoll's one catalogue of Apache Kafka properties: the producer,
// consumer and common client configs, the topic configs, and the few broker settings plimsoll
// relies on, each with Kafka's default, type, limits, a line of documentation and how
// plimsoll's Go client (franz-go) treats it.
//
// Everything about a Kafka property goes through here:
//
//   - Props holds properties by Kafka name with where each was set ("client.properties:3",
//     "--producer-prop"); Parse and Load read Java .properties text with
//     github.com/magiconair/properties, keeping FILE:LINE in errors.
//   - Check and Admit judge one property as it is read: an unknown name is an error with a
//     did-you-mean, a value of the wrong type or range is an error, a property the Go client
//     cannot honour is refused with the fix.
//   - Resolve turns the properties of a run into the configuration its producers and
//     consumers use: Kafka's defaults, the defaults Kafka derives from other properties
//     (computed as the Java client computes them, so only a value the user set can conflict),
//     plimsoll's batch.size rule for the message size (BatchSize), and the limits of franz-go.
//     The result records every value in force and how it was translated (ClientProps), and
//     Producer.Opts and Consumer.Opts map it to kgo options.
//
// The package imports no other plimsoll package.
package kafkaprops
