package loadgen

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"math/rand/v2"

	"github.com/plimsoll/plimsoll/workload"
)

// minPoolBytes is the least amount of distinct payload bytes a producer cycles through. It is
// larger than any batch a producer builds (max.request.size defaults to 1 MiB), so a
// compressing producer never sees the same payload twice inside one batch and random
// payloads stay incompressible whatever batch.size is.
const minPoolBytes = 8 << 20

// maxPoolBytes caps the pool for very large messages or pool sizes.
const maxPoolBytes = 64 << 20

// PayloadInfo describes what the producers send, for the result.
type PayloadInfo struct {
	Kind             string  `json:"kind"`
	Size             int     `json:"size"`                         // bytes per message value
	RandomBytesRatio float64 `json:"random_bytes_ratio,omitempty"` // random kind: the random share, rest zeros
	Distinct         int     `json:"distinct"`                     // distinct payloads cycled through
	// DeflateRatio is uncompressed / compressed size of 16 KiB of consecutive stamped
	// payloads (Kafka's default batch.size) under DEFLATE (gzip's algorithm, default level).
	// About 1.0 for random payloads of 1 KB; the 24-byte stamp is structured, so 100 B random
	// messages compress about 1.18x. Text states how compressible it is.
	DeflateRatio float64 `json:"deflate_ratio"`
}

// payloadPool is a read-only region of pre-generated payloads of one size. Producers copy a
// payload into their own record buffer and overwrite the first StampSize bytes with the stamp,
// so the pool itself is shared by every producer without locks.
type payloadPool struct {
	region []byte
	size   int
	n      uint64 // payloads in region
	info   PayloadInfo
}

// payload returns the i-th payload (cycling).
func (p *payloadPool) payload(i uint64) []byte {
	off := int(i%p.n) * p.size
	return p.region[off : off+p.size : off+p.size]
}

// newPayloadPool builds the payloads of size bytes. For random payloads, pl.RandomBytesRatio is
// the share of random bytes in each (OMB's randomBytesRatio: random first, zeros after) and
// pl.PoolSize the least number of distinct payloads (OMB's randomizedPayloadPoolSize). A file
// payload is pl.Data, whose length is the message size. seed makes runs reproducible.
func newPayloadPool(pl workload.Payload, size int, seed uint64) (*payloadPool, error) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	p := &payloadPool{info: PayloadInfo{Kind: pl.Kind.String()}}
	switch pl.Kind {
	case workload.PayloadFile:
		if len(pl.Data) < StampSize {
			return nil, fmt.Errorf("payload file %s holds %d bytes; it needs at least %d for the stamp", pl.Path, len(pl.Data), StampSize)
		}
		p.size, p.n, p.region = len(pl.Data), 1, pl.Data
	case workload.PayloadRandom, workload.PayloadText:
		if size < StampSize {
			return nil, fmt.Errorf("message size %d is below the %d-byte minimum (the stamp)", size, StampSize)
		}
		n := max(pl.PoolSize, (minPoolBytes+size-1)/size, 1)
		n = min(n, max(maxPoolBytes/size, 2))
		p.size, p.n = size, uint64(n)
		p.region = make([]byte, n*size)
		if pl.Kind == workload.PayloadText {
			fillText(p.region, rng)
			break
		}
		ratio := pl.RandomBytesRatio
		if ratio < 0 || ratio > 1 || ratio != ratio {
			return nil, fmt.Errorf("random-bytes ratio %v must be from 0 to 1", ratio)
		}
		p.info.RandomBytesRatio = ratio
		rnd := int(float64(size) * ratio)
		for i := 0; i < n; i++ {
			fillRandom(p.region[i*size:i*size+rnd], rng)
		}
	default:
		return nil, fmt.Errorf("payload kind %s: use random, text or file", pl.Kind)
	}
	p.info.Size, p.info.Distinct = p.size, int(p.n)
	p.info.DeflateRatio = p.deflateRatio()
	return p, nil
}

func fillRandom(b []byte, rng *rand.Rand) {
	for len(b) >= 8 {
		v := rng.Uint64()
		for i := 0; i < 8; i++ {
			b[i] = byte(v >> (8 * i))
		}
		b = b[8:]
	}
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// words is a vocabulary of common English words; fillText draws from it with a skewed
// (roughly Zipf) distribution, so the text compresses like prose, not like a repeated string.
var words = []string{
	"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by",
	"on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had",
	"they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been", "if",
	"more", "when", "will", "would", "who", "so", "no", "she", "other", "its", "may", "these", "what",
	"them", "than", "some", "him", "time", "into", "only", "do", "could", "new", "about", "two",
	"then", "first", "also", "any", "like", "our", "over", "such", "after", "most", "made", "very",
	"where", "before", "just", "through", "between", "people", "work", "system", "order", "message",
	"broker", "partition", "replica", "leader", "request", "batch", "record", "latency", "network",
	"storage", "capacity", "cluster", "consumer", "producer", "stream", "event", "payment", "account",
	"customer", "service", "update", "status", "region", "sensor", "reading", "value", "window",
	"during", "against", "because", "without", "within", "number", "second", "minute", "result",
	"change", "country", "market", "report", "world", "state", "company", "group", "problem", "point",
}

func fillText(b []byte, rng *rand.Rand) {
	i, sentence := 0, 0
	for i < len(b) {
		// Skewed pick: the square of a uniform favours the front (frequent) words.
		u := rng.Float64()
		w := words[int(u*u*float64(len(words)))]
		if sentence == 0 && len(w) > 0 {
			if i < len(b) {
				b[i] = w[0] - 'a' + 'A'
				i++
			}
			w = w[1:]
		}
		i += copy(b[i:], w)
		sentence++
		var sep string
		switch {
		case sentence > 6 && rng.IntN(8) == 0:
			sep, sentence = ". ", 0
		case rng.IntN(14) == 0:
			sep = ", "
		default:
			sep = " "
		}
		i += copy(b[i:], sep)
	}
}

// deflateRatio compresses about 16 KiB of consecutive payloads, stamped as a producer would
// stamp them, and returns uncompressed / compressed.
func (p *payloadPool) deflateRatio() float64 {
	const sample = 16 << 10
	var raw []byte
	buf := make([]byte, p.size)
	for i := uint64(0); len(raw) < sample; i++ {
		copy(buf, p.payload(i))
		Stamp{Producer: 0, Seq: i, Intended: int64(i) * 1000}.Encode(buf)
		raw = append(raw, buf...)
	}
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.DefaultCompression)
	_, _ = w.Write(raw)
	_ = w.Close()
	if out.Len() == 0 {
		return 1
	}
	return float64(len(raw)) / float64(out.Len())
}

// keyBytes is the size of the random part of each key; keys are its unpadded base64url form
// (10 characters), as OMB's key distributor makes them.
const keyBytes = 7

// keySet is a pre-generated key space shared read-only by all producers.
type keySet struct {
	mode workload.KeyMode
	keys [][]byte
}

func newKeySet(mode workload.KeyMode, count int, seed uint64) (*keySet, error) {
	switch mode {
	case workload.KeysNone:
		return &keySet{mode: mode}, nil
	case workload.KeysRoundRobin, workload.KeysRandom:
	default:
		return nil, fmt.Errorf("key mode %s: use none, round-robin or random", mode)
	}
	if count <= 0 {
		count = workload.DefaultKeyCount
	}
	rng := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	klen := base64.RawURLEncoding.EncodedLen(keyBytes)
	all := make([]byte, count*klen)
	var raw [keyBytes]byte
	ks := &keySet{mode: mode, keys: make([][]byte, count)}
	for i := range ks.keys {
		fillRandom(raw[:], rng)
		k := all[i*klen : (i+1)*klen : (i+1)*klen]
		base64.RawURLEncoding.Encode(k, raw[:])
		ks.keys[i] = k
	}
	return ks, nil
}

// size is the key size in bytes (0 with no keys).
func (k *keySet) size() int {
	if len(k.keys) == 0 {
		return 0
	}
	return len(k.keys[0])
}

// key returns the key of message seq; rng is the producer's own generator (random mode).
func (k *keySet) key(seq uint64, rng *rand.PCG) []byte {
	switch k.mode {
	case workload.KeysRoundRobin:
		return k.keys[seq%uint64(len(k.keys))]
	case workload.KeysRandom:
		return k.keys[rng.Uint64()%uint64(len(k.keys))]
	}
	return nil
}

// maxLen is the longest key's length, 0 without keys.
func (k *keySet) maxLen() int {
	n := 0
	for _, key := range k.keys {
		n = max(n, len(key))
	}
	return n
}
