package loadgen

import (
	"encoding/binary"
	"errors"
)

// StampSize is the number of payload bytes the stamp overwrites; workload.MinMessageSize
// guarantees every message has room for it.
const StampSize = 24

// Stamp layout, little endian:
//
//	[0:2]   magic "PL"
//	[2]     version (1)
//	[3]     flags: the low 4 bits the lane (Stamp.Lane), the rest reserved (0)
//	[4:8]   producer id
//	[8:16]  sequence within the producer, from 0
//	[16:24] intended send time, ns on the run's monotonic clock
const (
	stampMagic0  = 'P'
	stampMagic1  = 'L'
	stampVersion = 1
	laneMask     = 15 // ledger.Lanes - 1
	stampLaneAt  = 3  // the flags byte
)

// Errors returned by DecodeStamp. They are preallocated so decoding never allocates.
var (
	ErrStampShort   = errors.New("loadgen: payload shorter than the 24-byte stamp")
	ErrStampMagic   = errors.New("loadgen: payload carries no plimsoll stamp")
	ErrStampVersion = errors.New("loadgen: unknown stamp version")
)

// Stamp identifies one message: who sent it, its place in that producer's sequence, and
// when it was meant to be sent.
type Stamp struct {
	Producer uint32
	// Lane is the ordered stream of the producer the message went by (below ledger.Lanes): the
	// lean producer's session (loadgen/produce), 0 otherwise. Order is checked per lane.
	Lane     uint8
	Seq      uint64
	Intended int64 // ns since the run's clock started
}

// Encode writes s into the first StampSize bytes of dst, which must be at least that long.
func (s Stamp) Encode(dst []byte) {
	_ = dst[StampSize-1] // one bounds check
	dst[0], dst[1], dst[2], dst[3] = stampMagic0, stampMagic1, stampVersion, s.Lane&laneMask
	binary.LittleEndian.PutUint32(dst[4:8], s.Producer)
	binary.LittleEndian.PutUint64(dst[8:16], s.Seq)
	binary.LittleEndian.PutUint64(dst[16:24], uint64(s.Intended))
}

// DecodeStamp reads the stamp at the start of b.
func DecodeStamp(b []byte) (Stamp, error) {
	if len(b) < StampSize {
		return Stamp{}, ErrStampShort
	}
	if b[0] != stampMagic0 || b[1] != stampMagic1 {
		return Stamp{}, ErrStampMagic
	}
	if b[2] != stampVersion {
		return Stamp{}, ErrStampVersion
	}
	return Stamp{
		Producer: binary.LittleEndian.Uint32(b[4:8]),
		Lane:     b[3] & laneMask,
		Seq:      binary.LittleEndian.Uint64(b[8:16]),
		Intended: int64(binary.LittleEndian.Uint64(b[16:24])),
	}, nil
}
