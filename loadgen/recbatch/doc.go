// Package recbatch parses Kafka's v2 record batches in place: the bytes of one partition as a
// Fetch response carries them -> each batch's header, then each record's offset, timestamp, key,
// value and headers as sub-slices of those bytes, with no allocation per batch or per record
// once the parser has warmed up.
//
// It is the foundation of plimsoll's own fetch path (issue 15: a load client that is never the
// bottleneck): fetch responses read into reused buffers and parsed here, instead of franz-go's
// decoding, which allocates a response buffer per fetch and a record per record. Package
// loadgen/fetch, the consumers' fetch path, parses every partition of its responses with it.
//
// A Parser walks the batches of one partition (Reset, NextBatch, NextRecord). It checks each
// batch's CRC-32C, refuses v0/v1 message sets with a clear error, and reports bytes that end
// inside a batch (a fetch cut at its size limit, which is normal) as an incomplete tail, not as
// an error. Compressed batches (gzip, snappy raw or in xerial framing, lz4 frames, zstd) are
// decompressed into one buffer the parser owns and grows only, by decoders it keeps and resets.
// Control batches (transaction markers) are flagged; Aborts applies read_committed's rule to a
// Fetch response's aborted transactions.
//
// A Writer does the reverse for a producer: it writes one uncompressed v2 batch at a time into a
// buffer it keeps (Reset, Append or AppendValue per record, Finish with the producer id, epoch
// and base sequence, which also writes the CRC-32C), allocating nothing once the buffer has
// grown to the batch size in use. AppendValue hands back the value's bytes in the batch, so a
// payload is written in place rather than copied; Restamp rewrites a finished batch's producer
// fields and CRC. Its batches are checked byte for byte against the tests' own encoder and read
// back by the Parser and by franz-go (kmsg and kgo.ProcessFetchPartition).
//
// Everything a Parser hands out aliases either the bytes given to Reset or its own decompression
// buffer, and is valid until the next call to NextBatch or Reset. A Parser is not safe for
// concurrent use.
package recbatch
