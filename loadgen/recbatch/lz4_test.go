package recbatch

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// TestLZ4FrameOptions decodes frames written with the options a producer may choose: small
// blocks (several per batch), block and content checksums, the content size in the header,
// incompressible (stored) blocks, and two frames back to back.
func TestLZ4FrameOptions(t *testing.T) {
	random := make([]byte, 200_000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	recs := []rec{{value: bytes.Repeat([]byte("compressible "), 20_000)}, {key: []byte("r"), value: random}, {value: []byte("end")}}
	var enc []byte
	for _, r := range recs {
		enc = encodeRecord(enc, r)
	}
	opts := map[string][]lz4.Option{
		"64KB blocks":        {lz4.BlockSizeOption(lz4.Block64Kb)},
		"checksums and size": {lz4.BlockSizeOption(lz4.Block256Kb), lz4.BlockChecksumOption(true), lz4.ChecksumOption(true), lz4.SizeOption(uint64(len(enc)))},
		"no checksum":        {lz4.ChecksumOption(false)},
		"two frames":         nil,
	}
	for name, o := range opts {
		t.Run(name, func(t *testing.T) {
			var frame []byte
			if name == "two frames" {
				frame = append(lz4Frame(t, enc[:1000], nil), lz4Frame(t, enc[1000:], nil)...)
			} else {
				frame = lz4Frame(t, enc, o)
			}
			tb := tbatch{base: 5, codec: LZ4, numRecords: -1, recs: recs}
			var p Parser
			g := parseAll(&p, withRecords(tb.encode(t), frame))
			if g.err != nil {
				t.Fatal(g.err)
			}
			checkRecords(t, tb, g.recs)
		})
	}
}

// lz4Frame compresses b into one lz4 frame with opts.
func lz4Frame(t *testing.T, b []byte, opts []lz4.Option) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	if err := w.Apply(opts...); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLZ4HeaderChecksum refuses a frame whose descriptor does not match its checksum byte.
func TestLZ4HeaderChecksum(t *testing.T) {
	var enc []byte
	for _, r := range sampleRecords(3) {
		enc = encodeRecord(enc, r)
	}
	for _, o := range [][]lz4.Option{nil, {lz4.SizeOption(uint64(len(enc)))}} {
		frame := lz4Frame(t, enc, o)
		at := 6
		if len(o) > 0 {
			at += 8
		}
		frame[at] ^= 1
		tb := tbatch{codec: LZ4, numRecords: -1, recs: sampleRecords(3)}
		var p Parser
		if g := parseAll(&p, withRecords(tb.encode(t), frame)); g.err == nil || !strings.Contains(g.err.Error(), "lz4") {
			t.Errorf("options %v: err %v", o, g.err)
		}
	}
}
