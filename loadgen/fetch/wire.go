package fetch

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
)

// Version is the one Fetch version plimsoll speaks: v11 (Kafka 2.3 and later, 4.x included) is
// the last before flexible encoding and topic ids, and carries everything the consumer needs
// (isolation level, the current leader epoch per partition, the rack, aborted transactions).
const Version = 11

// apiFetch is Fetch's API key.
const apiFetch = 1

// ReqPartition is one partition of a Fetch request.
type ReqPartition struct {
	Partition   int32
	LeaderEpoch int32 // the epoch the consumer knows, -1 for none
	Offset      int64
	MaxBytes    int32
}

// ReqTopic is one topic of a Fetch request.
type ReqTopic struct {
	Name       string
	Partitions []ReqPartition
}

// Request is a session-less Fetch v11 request.
type Request struct {
	MaxWaitMs     int32
	MinBytes      int32
	MaxBytes      int32
	ReadCommitted bool
	Rack          string
	Topics        []ReqTopic
}

// AppendRequest appends the whole request as it goes on the wire (size, header v1, body) to dst.
func AppendRequest(dst []byte, correlation int32, clientID string, r *Request) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint16(dst, apiFetch)
	dst = binary.BigEndian.AppendUint16(dst, Version)
	dst = binary.BigEndian.AppendUint32(dst, uint32(correlation))
	dst = appendString(dst, clientID)
	dst = binary.BigEndian.AppendUint32(dst, 0xffffffff) // replica id -1: a consumer
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.MaxWaitMs))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.MinBytes))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.MaxBytes))
	iso := byte(0)
	if r.ReadCommitted {
		iso = 1
	}
	dst = append(dst, iso)
	dst = binary.BigEndian.AppendUint32(dst, 0)          // session id: none
	dst = binary.BigEndian.AppendUint32(dst, 0xffffffff) // session epoch -1: no session
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(r.Topics)))
	for i := range r.Topics {
		t := &r.Topics[i]
		dst = appendString(dst, t.Name)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(t.Partitions)))
		for _, p := range t.Partitions {
			dst = binary.BigEndian.AppendUint32(dst, uint32(p.Partition))
			dst = binary.BigEndian.AppendUint32(dst, uint32(p.LeaderEpoch))
			dst = binary.BigEndian.AppendUint64(dst, uint64(p.Offset))
			dst = binary.BigEndian.AppendUint64(dst, 0xffffffffffffffff) // log start offset: a consumer's -1
			dst = binary.BigEndian.AppendUint32(dst, uint32(p.MaxBytes))
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, 0) // forgotten topics: none
	dst = appendString(dst, r.Rack)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// RespPartition is one partition of a Fetch response. Its slices alias the response's bytes
// (Records) or the Response's own storage (Aborted): valid until the next Parse.
type RespPartition struct {
	Topic         int // index into Response.Topics
	Partition     int32
	ErrorCode     int16
	HighWatermark int64
	LastStable    int64
	LogStart      int64
	Aborted       []recbatch.AbortedTxn
	Records       []byte
}

// Response is a Fetch v11 response decoded by hand into storage it keeps: the partitions of
// every topic in one flat slice, the topic names as sub-slices of the bytes. Parse allocates
// only when a response has more partitions or aborted transactions than any before it.
type Response struct {
	Correlation int32
	ThrottleMs  int32
	ErrorCode   int16
	Topics      [][]byte // names, aliasing the bytes
	Partitions  []RespPartition
	aborted     []recbatch.AbortedTxn
}

// ErrMalformed is a Fetch response whose bytes do not decode.
var ErrMalformed = errors.New("malformed fetch response")

// Parse decodes a response (the bytes after its size: header v0, then the v11 body) into r.
func (r *Response) Parse(b []byte) error {
	d := decoder{b: b}
	r.Correlation = d.int32()
	r.ThrottleMs = d.int32()
	r.ErrorCode = d.int16()
	d.int32() // session id
	r.Topics, r.Partitions, r.aborted = r.Topics[:0], r.Partitions[:0], r.aborted[:0]
	nt := d.count(6) // a name's length and a partition count
	for range nt {
		r.Topics = append(r.Topics, d.string())
		np := d.count(42) // every fixed field, a null aborted list, null records
		for range np {
			p := RespPartition{Topic: len(r.Topics) - 1}
			p.Partition = d.int32()
			p.ErrorCode = d.int16()
			p.HighWatermark = d.int64()
			p.LastStable = d.int64()
			p.LogStart = d.int64()
			if na := d.count(16); na >= 0 {
				from := len(r.aborted)
				for range na {
					r.aborted = append(r.aborted, recbatch.AbortedTxn{ProducerID: d.int64(), FirstOffset: d.int64()})
				}
				p.Aborted = r.aborted[from:len(r.aborted):len(r.aborted)]
			}
			d.int32() // preferred read replica
			p.Records = d.bytes()
			if d.err != "" {
				break
			}
			r.Partitions = append(r.Partitions, p)
		}
		if d.err != "" {
			break
		}
	}
	if d.err == "" && len(d.b) != 0 {
		d.err = fmt.Sprintf("%d bytes after the response", len(d.b))
	}
	if d.err != "" {
		return fmt.Errorf("%w: %s", ErrMalformed, d.err)
	}
	// Aborted lists alias r.aborted, which append may have moved: point them at its final array.
	off := 0
	for i := range r.Partitions {
		if n := len(r.Partitions[i].Aborted); n > 0 {
			r.Partitions[i].Aborted = r.aborted[off : off+n : off+n]
			off += n
		}
	}
	return nil
}

// decoder reads big-endian fields off b; the first failure is kept in err and every read after
// it returns zero.
type decoder struct {
	b   []byte
	err string
}

func (d *decoder) take(n int, what string) []byte {
	if d.err != "" {
		return nil
	}
	if n < 0 || len(d.b) < n {
		d.err = fmt.Sprintf("%s: %d bytes wanted, %d left", what, n, len(d.b))
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) int16() int16 {
	if v := d.take(2, "int16"); v != nil {
		return int16(binary.BigEndian.Uint16(v))
	}
	return 0
}

func (d *decoder) int32() int32 {
	if v := d.take(4, "int32"); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (d *decoder) int64() int64 {
	if v := d.take(8, "int64"); v != nil {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

// count reads an array's length: -1 for a null array, else a length whose elements of at least
// least bytes each fit in what is left.
func (d *decoder) count(least int) int {
	n := d.int32()
	if d.err != "" {
		return 0
	}
	if n < -1 || int64(n)*int64(least) > int64(len(d.b)) {
		d.err = fmt.Sprintf("array of %d elements in %d bytes", n, len(d.b))
		return 0
	}
	return int(n)
}

// string reads a non-nullable string: a negative length is malformed.
func (d *decoder) string() []byte {
	return d.take(int(d.int16()), "string")
}

func (d *decoder) bytes() []byte {
	n := d.int32()
	if n < 0 {
		return nil
	}
	return d.take(int(n), "records")
}
