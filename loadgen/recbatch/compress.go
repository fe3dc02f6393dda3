package recbatch

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// encoders compress a Writer's records into buffers they own and reuse, with the codecs'
// state made on first use and reset for every batch after.
type encoders struct {
	scratch []byte // snappy's and lz4's block output
	gz      *gzip.Writer
	zs      *zstd.Encoder
	lz      lz4.Compressor
	sink    appender
}

// appender is an io.Writer appending to a slice it keeps.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// compress appends src compressed with c to dst, in the framing Kafka's clients write: a gzip
// stream, raw snappy (as franz-go writes; Kafka reads it beside snappy-java's xerial
// framing), an lz4 frame of independent 64 KiB blocks, a zstd frame.
func (e *encoders) compress(c Codec, dst, src []byte) ([]byte, error) {
	switch c {
	case Gzip:
		e.sink.b = dst
		if e.gz == nil {
			e.gz = gzip.NewWriter(&e.sink)
		} else {
			e.gz.Reset(&e.sink)
		}
		if _, err := e.gz.Write(src); err != nil {
			return dst, err
		}
		err := e.gz.Close()
		out := e.sink.b
		e.sink.b = nil
		return out, err
	case Snappy:
		n := snappy.MaxEncodedLen(len(src))
		if len(e.scratch) < n {
			e.scratch = make([]byte, n)
		}
		return append(dst, snappy.Encode(e.scratch, src)...), nil
	case LZ4:
		return e.lz4Frame(dst, src)
	case Zstd:
		if e.zs == nil {
			zs, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
			if err != nil {
				return dst, err
			}
			e.zs = zs
		}
		return e.zs.EncodeAll(src, dst), nil
	}
	return dst, fmt.Errorf("recbatch: no codec %d", int8(c))
}

// The lz4 frame the Writer writes (the magic number and lz4Stored are lz4.go's): FLG (version
// 01, independent blocks, no checksums, no content size) and BD (64 KiB blocks), as Kafka's
// Java client writes them.
const (
	lz4FLG      = 0x60
	lz4BD       = 0x40
	lz4BlockMax = 64 << 10
)

// lz4Frame appends src as an lz4 frame.
func (e *encoders) lz4Frame(dst, src []byte) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint32(dst, lz4Magic)
	dst = append(dst, lz4FLG, lz4BD)
	dst = append(dst, byte(xxh32Small([]byte{lz4FLG, lz4BD})>>8))
	if n := lz4.CompressBlockBound(lz4BlockMax); len(e.scratch) < n {
		e.scratch = make([]byte, n)
	}
	for len(src) > 0 {
		blk := src[:min(len(src), lz4BlockMax)]
		src = src[len(blk):]
		n, err := e.lz.CompressBlock(blk, e.scratch)
		if err != nil {
			return dst, err
		}
		if n == 0 || n >= len(blk) {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(blk))|lz4Stored)
			dst = append(dst, blk...)
			continue
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
		dst = append(dst, e.scratch[:n]...)
	}
	return binary.LittleEndian.AppendUint32(dst, 0), nil // end mark
}
