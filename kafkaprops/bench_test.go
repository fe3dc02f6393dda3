package kafkaprops

import (
	"strings"
	"testing"
)

// Reading properties is not on the measuring path, but a limit search validates a spec per
// trial and `plimsoll run` reads the files users pass in; this keeps both cheap.
func BenchmarkParse(b *testing.B) {
	text := "# producer\nacks=all\nlinger.ms=1\nbatch.size=1048576\ncompression.type=zstd\n" +
		"enable.idempotence=true\nmax.in.flight.requests.per.connection=5\nretries=2147483647\n" +
		"client.id=plimsoll\\\n  -bench\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";\n"
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(text), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
