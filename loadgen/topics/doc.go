// Package topics is the topic and consumer group administration of a run, confined to the
// run's prefix: plimsoll creates, lists and deletes only names that start with it.
//
// CheckPrefix is the one prefix rule, for the command line and the load generator alike.
// TopicNames and GroupNames name a run's topics and groups under the prefix. EnsureNone refuses
// a prefix that topics already use (the run would otherwise produce into topics it did not
// create), Create creates the topics and waits until every partition has a leader, and
// DeleteOwned deletes the run's topics and groups, skipping any name outside the prefix.
package topics
