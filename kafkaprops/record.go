package kafkaprops

// ClientProps records the configuration one kind of client ran with, by Kafka property name:
// every property plimsoll maps, with the value in force (the user's, else the default Kafka
// or plimsoll derives, else Kafka's default).
type ClientProps struct {
	Props map[string]string `json:"props"`
	Set   []string          `json:"set,omitempty"`   // names the user gave
	Notes []string          `json:"notes,omitempty"` // how a value was derived or translated, or why ignored
}

// EffectiveProps are the producer and consumer configurations of a run; result.json records them.
type EffectiveProps struct {
	Producer ClientProps `json:"producer"`
	Consumer ClientProps `json:"consumer"`
}
