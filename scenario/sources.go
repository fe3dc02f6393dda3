package scenario

import "github.com/plimsoll/plimsoll/results"

// instaclustr is seed 002, the article four scenarios repeat, on the hardware of the experiment
// a scenario repeats (each of 002's experiments ran on its own machines): one title for all.
func instaclustr(hardware string) results.Source {
	return results.Source{Seed: "002",
		Title:    "The Impact of Hardware and Software Version Changes on Apache Kafka Performance and Scalability (Instaclustr, ApacheCon NA 2022)",
		Hardware: hardware}
}
