package recbatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/pierrec/lz4/v4"
)

// LZ4 frames (the LZ4 frame format, which Kafka's v2 batches use) are walked here and their
// blocks decoded by pierrec/lz4's block decoder straight into the decompression buffer:
// lz4.Reader decodes through block buffers of its own from a sync.Pool, which a collection
// empties, so it allocated about 3.7 KB per fetch in BenchmarkParse/lz4 where this allocates
// nothing. The header's checksum is checked, the block and content checksums (xxHash32 of the
// data) are not, as Kafka's Java consumer does: the batch's CRC-32C already covers these bytes.

const (
	lz4Magic      = 0x184D2204
	lz4Window     = 64 << 10 // how far back a dependent block may refer
	lz4FlagBlockC = 0x10     // each block is followed by a checksum
	lz4FlagSize   = 0x08     // the header carries the content size
	lz4FlagContC  = 0x04     // the frame ends with a content checksum
	lz4FlagDict   = 0x01     // the header carries a dictionary id
	lz4Stored     = 0x80000000
	lz4MaxRatio   = 255 // a block expands at most about 255 times: the room its decoding gets
)

var errLZ4 = errors.New("malformed lz4 frame")

// unlz4 decompresses the lz4 frames in src into the decoders' buffer.
func (d *decoders) unlz4(src []byte, limit int) ([]byte, error) {
	out := d.out[:0]
	for len(src) > 0 {
		var err error
		if out, src, err = d.lz4Frame(out, src, limit); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lz4Frame decodes the frame at the start of src after out and returns what follows it.
func (d *decoders) lz4Frame(out, src []byte, limit int) ([]byte, []byte, error) {
	flags, blockMax, rest, err := lz4Header(src)
	if err != nil {
		return nil, nil, err
	}
	for {
		if len(rest) < 4 {
			return nil, nil, errLZ4
		}
		size := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if size == 0 {
			break
		}
		n := int(size &^ lz4Stored)
		if n > len(rest) {
			return nil, nil, errLZ4
		}
		room := min(blockMax, limit-len(out), lz4MaxRatio*n+lz4MaxRatio)
		if out, err = d.lz4Block(out, rest[:n], size&lz4Stored != 0, room); err != nil {
			if room == limit-len(out) {
				err = fmt.Errorf("%w, or is corrupt: %v", errTooBig, err)
			}
			return nil, nil, err
		}
		rest = rest[n:]
		if flags&lz4FlagBlockC != 0 {
			rest = skip(rest, 4)
		}
	}
	if flags&lz4FlagContC != 0 {
		if len(rest) < 4 {
			return nil, nil, errLZ4
		}
		rest = rest[4:]
	}
	return out, rest, nil
}

// lz4Header reads a frame's header: its flags, its blocks' maximum size, and the bytes after it.
func lz4Header(src []byte) (flags byte, blockMax int, rest []byte, err error) {
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != lz4Magic {
		return 0, 0, nil, errLZ4
	}
	flags, bd := src[4], src[5]
	if flags>>6 != 1 {
		return 0, 0, nil, errLZ4
	}
	code := (bd >> 4) & 7
	if code < 4 {
		return 0, 0, nil, errLZ4
	}
	n := 6
	if flags&lz4FlagSize != 0 {
		n += 8
	}
	if flags&lz4FlagDict != 0 {
		n += 4
	}
	if len(src) < n+1 || byte(xxh32Small(src[4:n])>>8) != src[n] {
		return 0, 0, nil, errLZ4
	}
	n++
	return flags, 1 << (8 + 2*int(code)), src[n:], nil
}

// lz4Block decodes one block after out, at most room bytes; a stored block is copied.
func (d *decoders) lz4Block(out, block []byte, stored bool, room int) ([]byte, error) {
	if room < 0 {
		return nil, errTooBig
	}
	if stored {
		if len(block) > room {
			return nil, errTooBig
		}
		return append(d.grow(out, len(block)), block...), nil
	}
	out = d.grow(out, room)
	dict := out[max(0, len(out)-lz4Window):]
	n, err := lz4.UncompressBlockWithDict(block, out[len(out):len(out)+room], dict)
	if err != nil {
		return nil, err
	}
	return out[:len(out)+n], nil
}

// skip drops the first n bytes of b, or all of it if shorter.
func skip(b []byte, n int) []byte { return b[min(n, len(b)):] }

// The primes of xxHash32 (Yann Collet's xxHash specification).
const (
	xxPrime1 uint32 = 2654435761
	xxPrime2 uint32 = 2246822519
	xxPrime3 uint32 = 3266489917
	xxPrime4 uint32 = 668265263
	xxPrime5 uint32 = 374761393
)

// xxh32Small returns xxHash32 with seed 0 of b, shorter than 16 bytes (a frame descriptor).
func xxh32Small(b []byte) uint32 {
	h := xxPrime5 + uint32(len(b))
	for ; len(b) >= 4; b = b[4:] {
		h += binary.LittleEndian.Uint32(b) * xxPrime3
		h = bits.RotateLeft32(h, 17) * xxPrime4
	}
	for _, c := range b {
		h += uint32(c) * xxPrime5
		h = bits.RotateLeft32(h, 11) * xxPrime1
	}
	h ^= h >> 15
	h *= xxPrime2
	h ^= h >> 13
	h *= xxPrime3
	return h ^ h>>16
}
