package recbatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// errTooBig reports records that decompress beyond the parser's bound.
var errTooBig = errors.New("decompresses beyond the parser's MaxDecompressed")

// decoders decompress batches into one buffer they own, grown only, with decoders made on
// first use and reset for every batch after.
type decoders struct {
	out      []byte // the decompression buffer: the current batch's records
	src      bytes.Reader
	gz       *gzip.Reader
	zs       *zstd.Decoder
	zsLimit  int
	overflow [1]byte
}

// decompress returns src decompressed with c into the decoders' buffer, at most limit bytes.
func (d *decoders) decompress(c Codec, src []byte, limit int) ([]byte, error) {
	switch c {
	case Gzip:
		return d.gunzip(src, limit)
	case Snappy:
		return d.unsnappy(src, limit)
	case LZ4:
		return d.unlz4(src, limit)
	case Zstd:
		return d.unzstd(src, limit)
	}
	return nil, fmt.Errorf("unknown compression codec %d", int8(c))
}

// deflateMaxRatio bounds how many times deflate can expand its input.
const deflateMaxRatio = 1032

// gunzip decompresses a gzip stream, sizing the buffer by the stream's trailer (ISIZE).
func (d *decoders) gunzip(src []byte, limit int) ([]byte, error) {
	d.src.Reset(src)
	var err error
	if d.gz == nil {
		d.gz, err = gzip.NewReader(&d.src)
	} else {
		err = d.gz.Reset(&d.src)
	}
	if err != nil {
		return nil, err
	}
	hint := 0
	if len(src) >= 4 { // deflate expands at most about 1032 times: a larger trailer lies
		hint = min(int(binary.LittleEndian.Uint32(src[len(src)-4:])), deflateMaxRatio*len(src))
	}
	return d.readAll(d.gz, hint, limit)
}

// unzstd decompresses zstd frames with one decoder, kept (and remade only if limit changes).
func (d *decoders) unzstd(src []byte, limit int) ([]byte, error) {
	if d.zs == nil || d.zsLimit != limit {
		zs, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(limit)))
		if err != nil {
			return nil, err
		}
		d.zs, d.zsLimit = zs, limit
	}
	out, err := d.zs.DecodeAll(src, d.out[:0])
	d.keep(out)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, errTooBig
	}
	if err != nil {
		return nil, err
	}
	if len(out) > limit {
		return nil, errTooBig
	}
	return out, nil
}

// xerialMagic starts snappy in xerial framing (snappy-java's stream, which Kafka's Java
// producer writes): the magic, then a version and a compatible version (4 bytes each), then
// blocks, each a 4-byte big-endian length and a raw snappy block.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const xerialHeader = 16

// unsnappy decompresses snappy: one raw block, or xerial framing.
func (d *decoders) unsnappy(src []byte, limit int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return d.appendSnappy(d.out[:0], src, limit)
	}
	if len(src) < xerialHeader {
		return nil, errors.New("xerial snappy header cut short")
	}
	out := d.out[:0]
	for rest := src[xerialHeader:]; len(rest) > 0; {
		if len(rest) < 4 {
			return nil, errors.New("xerial snappy block length cut short")
		}
		n := binary.BigEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-4) {
			return nil, errors.New("xerial snappy block runs past the batch")
		}
		var err error
		if out, err = d.appendSnappy(out, rest[4:4+n], limit); err != nil {
			return nil, err
		}
		rest = rest[4+n:]
	}
	return out, nil
}

// appendSnappy decodes one raw snappy block after out, in the decoders' buffer.
func (d *decoders) appendSnappy(out, block []byte, limit int) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return nil, err
	}
	if n > limit-len(out) {
		return nil, errTooBig
	}
	out = d.grow(out, n)
	if _, err := snappy.Decode(out[len(out):len(out)+n], block); err != nil {
		return nil, err
	}
	return out[:len(out)+n], nil
}

// readAll reads r to its end into the decoders' buffer, first sized for hint bytes, and fails
// beyond limit bytes.
func (d *decoders) readAll(r io.Reader, hint, limit int) ([]byte, error) {
	out := d.grow(d.out[:0], min(max(hint, 512), limit))
	for {
		if len(out) == cap(out) {
			if len(out) >= limit {
				if err := d.overLimit(r); err != nil {
					return nil, err
				}
				return out, nil
			}
			out = d.grow(out, min(cap(out), limit-len(out)))
		}
		n, err := r.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// overLimit tells a stream that ends exactly at the limit from one that goes beyond it.
func (d *decoders) overLimit(r io.Reader) error {
	for {
		n, err := r.Read(d.overflow[:])
		if n > 0 {
			return errTooBig
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// grow returns out with room for n more bytes, keeping a larger buffer for the batches after.
func (d *decoders) grow(out []byte, n int) []byte {
	if cap(out)-len(out) >= n {
		return out
	}
	bigger := make([]byte, len(out), max(2*cap(out), len(out)+n))
	copy(bigger, out)
	d.keep(bigger)
	return bigger
}

// keep makes b's array the decompression buffer if it is larger than the one held.
func (d *decoders) keep(b []byte) {
	if cap(b) > cap(d.out) {
		d.out = b[:0]
	}
}
