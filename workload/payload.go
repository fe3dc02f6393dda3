package workload

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PayloadKind says what the bytes after each message's stamp are.
type PayloadKind uint8

const (
	// PayloadRandom is random bytes (RandomBytesRatio of each message, the rest zeros). With the
	// default ratio 1 it is incompressible, so compression cannot flatter the figures.
	PayloadRandom PayloadKind = iota
	// PayloadText is printable text that compresses, for measuring compression on purpose.
	PayloadText
	// PayloadFile is the bytes of a file (OMB's payloadFile); its length is the message size.
	PayloadFile
)

var payloadKindNames = []string{"random", "text", "file"}

func (k PayloadKind) String() string {
	if int(k) < len(payloadKindNames) {
		return payloadKindNames[k]
	}
	return "PayloadKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText renders the kind by name, for JSON results.
func (k PayloadKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses a kind name.
func (k *PayloadKind) UnmarshalText(b []byte) error {
	for i, n := range payloadKindNames {
		if string(b) == n {
			*k = PayloadKind(i)
			return nil
		}
	}
	return fmt.Errorf("%w: %q is not a payload kind; use random, text or file", ErrInvalid, b)
}

// Payload describes message contents. The loadgen writes its stamp over the first
// MinMessageSize bytes of every message, whatever the kind.
type Payload struct {
	Kind PayloadKind `json:"kind"`
	// RandomBytesRatio is, for PayloadRandom, the share of each message that is random, the
	// rest zeros (OMB's randomBytesRatio); 1 is incompressible.
	RandomBytesRatio float64 `json:"random-bytes-ratio,omitempty"`
	// PoolSize is, for PayloadRandom, how many distinct payloads to generate up front (OMB's
	// randomizedPayloadPoolSize); 0 lets the loadgen choose.
	PoolSize int `json:"pool-size,omitempty"`
	// Path is, for PayloadFile, the file's resolved path.
	Path string `json:"path,omitempty"`
	// Data is, for PayloadFile, the file's contents.
	Data []byte `json:"-"`
}

// String renders the payload as the --payload flag takes it.
func (p Payload) String() string {
	switch p.Kind {
	case PayloadRandom:
		if p.RandomBytesRatio != 1 {
			return "random:" + strconv.FormatFloat(p.RandomBytesRatio, 'g', -1, 64)
		}
		return "random"
	case PayloadFile:
		return "file:" + p.Path
	}
	return p.Kind.String()
}

// ParsePayload parses the --payload value: random (incompressible), random:RATIO (that share of
// each message random, the rest zeros), text (compressible), or file:PATH. A file is read now; a
// relative PATH is taken from baseDir (the workload file's directory; "" for the working
// directory), and errors name the resolved path.
func ParsePayload(s, baseDir string) (Payload, error) {
	kind, arg, hasArg := strings.Cut(s, ":")
	switch {
	case kind == "random" && !hasArg:
		return Payload{Kind: PayloadRandom, RandomBytesRatio: 1}, nil
	case kind == "random":
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(r) || r < 0 || r > 1 {
			return Payload{}, fmt.Errorf("%q: the random-bytes ratio must be a number from 0 to 1 (e.g. random:0.5 for half random, half zeros)", s)
		}
		return Payload{Kind: PayloadRandom, RandomBytesRatio: r}, nil
	case kind == "text" && !hasArg:
		return Payload{Kind: PayloadText}, nil
	case kind == "file":
		if arg == "" {
			return Payload{}, fmt.Errorf("%q names no file; write file:PATH", s)
		}
		data, path, err := readPayloadFile(arg, baseDir)
		if err != nil {
			return Payload{}, err
		}
		return Payload{Kind: PayloadFile, Path: path, Data: data}, nil
	}
	return Payload{}, fmt.Errorf("%q is not a payload; use random, random:RATIO, text or file:PATH", s)
}

// resolvePath makes path absolute against baseDir (or the working directory).
func resolvePath(path, baseDir string) string {
	if !filepath.IsAbs(path) && baseDir != "" {
		path = filepath.Join(baseDir, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// readPayloadFile reads a payload file of at most MaxMessageSize bytes.
func readPayloadFile(name, baseDir string) ([]byte, string, error) {
	path := resolvePath(name, baseDir)
	f, err := os.Open(path)
	if err != nil {
		return nil, path, fmt.Errorf("cannot read payload file %s: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		// A directory has no bytes to send, and a pipe or device could block or never end.
		return nil, path, fmt.Errorf("payload file %s is not a regular file; name a file whose bytes are the message", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxMessageSize+1))
	if err != nil {
		return nil, path, fmt.Errorf("cannot read payload file %s: %w", path, err)
	}
	if len(data) == 0 {
		return nil, path, fmt.Errorf("payload file %s is empty; its bytes are the message, so it needs at least %d", path, MinMessageSize)
	}
	if len(data) > MaxMessageSize {
		return nil, path, fmt.Errorf("payload file %s is larger than the %d-byte message limit", path, MaxMessageSize)
	}
	return data, path, nil
}
