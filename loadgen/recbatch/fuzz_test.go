package recbatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fuzzSeeds returns the fuzz test's seeds: every captured partition (testdata/kafka-*), the
// tests' own batches of every codec, and variants of them with a corrupt CRC, a corrupt record
// and a cut tail.
func fuzzSeeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob("testdata/kafka-*/*.bin")
	var seeds [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for i, c := range allCodecs {
		seeds = append(seeds, tbatch{base: int64(i), codec: c, pid: 4, numRecords: -1, recs: sampleRecords(6)}.encode(t))
	}
	seeds = append(seeds, transactions(t))
	var variants [][]byte
	for _, s := range seeds {
		variants = append(variants, s[:len(s)*2/3], flipped(s, len(s)/2), flipped(s, crcAt))
	}
	return append(seeds, variants...)
}

// flipped returns a copy of b with the byte at i inverted.
func flipped(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0xff
	return c
}

// FuzzParse checks, for any bytes: no panic; the whole batches returned lie within the bytes,
// carry a matching CRC-32C and give no more records than their count and their bytes allow;
// the parse stops only at the end, an incomplete tail or an error; any byte changed after a
// returned batch's CRC field makes that batch a CRC error; and where the parser finds no error,
// franz-go finds the same records (where comparable says it should).
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := Parser{MaxDecompressed: 1 << 20}
		ends, err := checkParse(t, &p, b)
		if len(ends) > 0 {
			checkCRCCovers(t, &p, b[:ends[0]])
		}
		if err == nil && !p.IncompleteTail() && comparable(&p, b) {
			crossCheck(t, b, nil)
		}
	})
}

// checkParse parses b, checks what the parser returns against the bytes and returns where each
// whole batch ended.
func checkParse(t *testing.T, p *Parser, b []byte) ([]int, error) {
	var ends []int
	p.Reset(b)
	for at := 0; p.NextBatch(); at = p.Consumed() {
		batch := p.Batch()
		whole := b[at:p.Consumed()]
		if len(whole) != batch.Size() || crc32Checksum(whole[attributesAt:]) != batch.CRC {
			t.Fatalf("batch at %d: %d bytes, size %d, CRC %#x", at, len(whole), batch.Size(), batch.CRC)
		}
		ends = append(ends, p.Consumed())
		n := 0
		var r Record
		for p.NextRecord(&r) {
			n++
		}
		if n > int(batch.NumRecords) || batch.Codec() == None && n*recordMinEncoding > len(whole)-headerSize {
			t.Fatalf("batch at %d: %d records from %d bytes, count %d", at, n, len(whole), batch.NumRecords)
		}
	}
	err := p.Err()
	if p.Consumed() > len(b) || err == nil && !p.IncompleteTail() && p.Consumed() != len(b) {
		t.Fatalf("consumed %d of %d bytes, err %v, tail %v", p.Consumed(), len(b), err, p.IncompleteTail())
	}
	return ends, err
}

// checkCRCCovers changes one byte of the whole batch b after its CRC field and expects a CRC
// error for it.
func checkCRCCovers(t *testing.T, p *Parser, b []byte) {
	p.Reset(flipped(b, attributesAt+(len(b)-attributesAt)/2))
	if p.NextBatch() || !errors.As(p.Err(), new(*CRCError)) {
		t.Fatalf("a changed byte in the first batch: err %v", p.Err())
	}
}

// comparable reports whether franz-go should find the same records in b as the parser: every
// batch's last offset and every record's offset is at least 0 and past the record before (franz-go's
// ProcessFetchPartition, as a consumer, drops whatever is not; FuzzParse found a batch whose
// last offset delta was negative), and no batch sets an attribute bit Kafka reserves (franz-go
// reads 0x80 as "no timestamp type" and gives every record the batch's max timestamp;
// FuzzRecords found it).
func comparable(p *Parser, b []byte) bool {
	next := int64(0) // franz-go is asked for offset 0: it drops negative offsets too
	p.Reset(b)
	for p.NextBatch() {
		if p.Batch().LastOffset() < next || p.Batch().Attributes&reservedBits != 0 {
			return false
		}
		var r Record
		for p.NextRecord(&r) {
			if r.Offset < next || r.Offset == math.MaxInt64 {
				return false
			}
			next = r.Offset + 1
		}
	}
	return true
}

// FuzzRecords fuzzes what FuzzParse rarely reaches: a changed byte almost always breaks the
// batch's CRC, so here the fuzzer writes a batch's records section (compressed or not, by
// attributes) and its record count, and the test gives the batch a valid header and CRC. The
// same properties hold, and franz-go must find the same records where the parser finds no
// error.
func FuzzRecords(f *testing.F) {
	for i, c := range allCodecs {
		tb := tbatch{codec: c, numRecords: -1, recs: sampleRecords(3 + i)}
		enc := tb.encode(f)
		f.Add(int16(c), int32(len(tb.recs)), enc[headerSize:])
		f.Add(int16(c)|transactionalBit|controlBit, int32(1), enc[headerSize:])
	}
	var xrecs []byte
	for _, r := range sampleRecords(20) {
		xrecs = encodeRecord(xrecs, r)
	}
	f.Add(int16(Snappy), int32(20), xerialBlocks(xrecs, 300))
	f.Fuzz(func(t *testing.T, attrs int16, n int32, recs []byte) {
		b := fixed(append(tbatch{base: 100, baseTs: 1_700_000_000_000, pid: 2, numRecords: n}.encode(t)[:headerSize], recs...))
		binary.BigEndian.PutUint16(b[attributesAt:], uint16(attrs))
		b = fixed(b)
		p := Parser{MaxDecompressed: 1 << 20}
		_, err := checkParse(t, &p, b)
		if err == nil && comparable(&p, b) && !bareXerial(attrs, recs) {
			crossCheck(t, b, nil)
		}
	})
}

// bareXerial reports whether recs are snappy's xerial header and no block: an empty stream,
// which the parser reads as no bytes and franz-go refuses (s2: corrupt input; FuzzRecords).
func bareXerial(attrs int16, recs []byte) bool {
	return Codec(attrs&codecMask) == Snappy && len(recs) == xerialHeader && bytes.HasPrefix(recs, xerialMagic)
}

// reservedBits are the attribute bits Kafka's v2 batch leaves unused.
const reservedBits = ^int16(0x7f)
