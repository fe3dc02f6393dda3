package recbatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// castagnoli is the CRC-32C table Kafka's v2 batches are checked with.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// DefaultMaxDecompressed bounds a compressed batch's records once decompressed, unless a
// Parser sets its own MaxDecompressed. A batch beyond it is an error (a decompression bomb or
// a corrupt batch), not a reason to allocate without limit.
const DefaultMaxDecompressed = 64 << 20

// ErrMessageSet reports a v0 or v1 message set: only v2 record batches (Kafka 0.11 and later
// producers) are parsed.
var ErrMessageSet = errors.New("a v0/v1 message set: recbatch parses only v2 record batches")

// ErrCorrupt is wrapped by every error about a batch's bytes that do not follow the format.
var ErrCorrupt = errors.New("corrupt record batch")

// CRCError reports a batch whose CRC-32C does not match its bytes.
type CRCError struct {
	BaseOffset int64
	Want, Got  uint32 // the CRC the batch carries, the one its bytes have
}

func (e *CRCError) Error() string {
	return fmt.Sprintf("record batch at offset %d: CRC-32C is %#08x, the batch says %#08x", e.BaseOffset, e.Got, e.Want)
}

// Unwrap makes a CRCError an ErrCorrupt.
func (e *CRCError) Unwrap() error { return ErrCorrupt }

// Parser walks the record batches of one partition's bytes in place. The zero Parser is ready:
// Reset it with the bytes, then call NextBatch and, within each batch, NextRecord.
type Parser struct {
	// MaxDecompressed bounds a compressed batch's records once decompressed (0:
	// DefaultMaxDecompressed).
	MaxDecompressed int

	buf   []byte // the partition's bytes
	pos   int    // where the next batch starts in buf
	batch Batch
	recs  []byte // the current batch's records (in buf, or in the decompression buffer)
	packd []byte // the current batch's compressed records, until its first NextRecord
	left  int32  // records of the current batch not yet returned
	err   error
	tail  bool
	dec   decoders
}

// Reset starts the parser on a partition's bytes (a Fetch response's RecordBatches).
func (p *Parser) Reset(partition []byte) {
	p.buf, p.pos, p.recs, p.packd, p.left, p.err, p.tail = partition, 0, nil, nil, 0, nil, false
	p.batch = Batch{}
}

// Err returns the error that stopped the parser, nil if it stopped at the end of the bytes or
// at an incomplete tail.
func (p *Parser) Err() error { return p.err }

// IncompleteTail reports whether the bytes ended inside a batch: a fetch cut at its size limit
// does this, and the consumer fetches again from the offset after the last whole batch.
func (p *Parser) IncompleteTail() bool { return p.tail }

// Consumed returns how many bytes the whole batches returned so far take.
func (p *Parser) Consumed() int { return p.pos }

// Batch returns the header of the batch NextBatch moved to; valid until the next NextBatch.
func (p *Parser) Batch() *Batch { return &p.batch }

// NextBatch moves to the next batch and checks its CRC and header. A compressed batch's records
// are decompressed by its first NextRecord, so a batch skipped (NextBatch again, as for an
// aborted transaction's) costs no decompression. It returns false at the end of the bytes, at
// an incomplete tail (IncompleteTail) or at an error (Err); the parser then stays stopped until
// Reset.
func (p *Parser) NextBatch() bool {
	p.recs, p.packd, p.left = nil, nil, 0
	if p.err != nil || p.tail || p.pos >= len(p.buf) {
		return false
	}
	whole, ok := p.frame(p.buf[p.pos:])
	if !ok {
		return false
	}
	p.batch.decodeHeader(whole)
	if err := p.open(whole); err != nil {
		p.err = err
		return false
	}
	p.pos += len(whole)
	return true
}

// frame returns the next batch's bytes, checked for their magic and CRC, or false with the
// tail or the error recorded.
func (p *Parser) frame(rest []byte) ([]byte, bool) {
	if len(rest) <= magicAt {
		p.tail = true
		return nil, false
	}
	base := int64(binary.BigEndian.Uint64(rest))
	length := int32(binary.BigEndian.Uint32(rest[8:]))
	if magic := int8(rest[magicAt]); magic != 2 {
		p.err = fmt.Errorf("offset %d: magic %d: %w", base, magic, ErrMessageSet)
		return nil, false
	}
	if length < headerSize-logOverhead {
		p.err = fmt.Errorf("%w at offset %d: length %d is shorter than a batch header", ErrCorrupt, base, length)
		return nil, false
	}
	if int64(length) > int64(len(rest)-logOverhead) {
		p.tail = true
		return nil, false
	}
	whole := rest[:logOverhead+int(length)]
	want := binary.BigEndian.Uint32(whole[crcAt:])
	if got := crc32Checksum(whole[attributesAt:]); got != want {
		p.err = &CRCError{BaseOffset: base, Want: want, Got: got}
		return nil, false
	}
	return whole, true
}

// open points the parser at the records of the batch whole: uncompressed ones checked for a
// count their bytes can hold, compressed ones kept for unpack.
func (p *Parser) open(whole []byte) error {
	b := &p.batch
	if b.NumRecords < 0 {
		return fmt.Errorf("%w at offset %d: a record count of %d", ErrCorrupt, b.BaseOffset, b.NumRecords)
	}
	if b.Codec() != None {
		p.packd, p.left = whole[headerSize:], b.NumRecords
		return nil
	}
	return p.point(whole[headerSize:])
}

// unpack decompresses the current batch's records.
func (p *Parser) unpack() error {
	b := &p.batch
	recs, err := p.dec.decompress(b.Codec(), p.packd, p.maxDecompressed())
	p.packd = nil
	if err != nil {
		return fmt.Errorf("%w at offset %d: %s: %v", ErrCorrupt, b.BaseOffset, b.Codec(), err)
	}
	return p.point(recs)
}

// point checks that the current batch's record count fits recs and points the parser at them.
func (p *Parser) point(recs []byte) error {
	b := &p.batch
	if int64(b.NumRecords)*recordMinEncoding > int64(len(recs)) {
		return fmt.Errorf("%w at offset %d: %d records cannot fit in %d bytes", ErrCorrupt, b.BaseOffset, b.NumRecords, len(recs))
	}
	p.recs, p.left = recs, b.NumRecords
	return nil
}

// maxDecompressed returns the bound on a batch's decompressed records in force.
func (p *Parser) maxDecompressed() int {
	if p.MaxDecompressed > 0 {
		return p.MaxDecompressed
	}
	return DefaultMaxDecompressed
}

// crc32Checksum returns the CRC-32C of b.
func crc32Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
