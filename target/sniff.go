package target

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrNotKafka means the bootstrap address answered, but not as a Kafka broker does (an HTTP
// server, say): a wrong --bootstrap rather than a cluster that is down.
var ErrNotKafka = errors.New("not a Kafka broker")

// sniffWait is how long sniff waits for each answer. A broker answers ApiVersions within
// milliseconds; only a server that waits for something else (an HTTP server for the end of a
// request line) takes longer.
const sniffWait = 1500 * time.Millisecond

// sniffCorrelation is the correlation id of sniff's request, echoed by a Kafka broker.
const sniffCorrelation = 0x706c6d73

// sniff asks the plaintext listener at addr for its API versions, the request every Kafka
// client sends first (before any SASL exchange), and returns ErrNotKafka when the answer shows
// another protocol. A server that stays silent is nudged with the blank line that ends an HTTP
// request: an HTTP server then answers with a status line. It returns nil when addr answered
// as Kafka, or when it cannot tell (refused, closed, silent): the client's own error says more.
func sniff(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil
	}
	defer conn.Close()
	if _, err := conn.Write(apiVersionsFrame()); err != nil {
		return nil
	}
	head, err := readSome(conn)
	if len(head) == 0 && isTimeout(err) {
		if _, err := conn.Write([]byte("\r\n\r\n")); err != nil {
			return nil
		}
		head, _ = readSome(conn)
	}
	return judge(addr, head)
}

// judge tells a Kafka response from another protocol's first bytes (none: cannot tell).
func judge(addr string, head []byte) error {
	switch {
	case len(head) == 0:
		return nil
	case bytes.HasPrefix(head, []byte("HTTP/")):
		line, _, _ := bytes.Cut(head, []byte("\r\n"))
		return fmt.Errorf("%w: %s answers HTTP (%q), not Kafka's protocol", ErrNotKafka, addr, line)
	case len(head) >= 8 && binary.BigEndian.Uint32(head[4:8]) == sniffCorrelation:
		if size := binary.BigEndian.Uint32(head[:4]); size >= 6 && size < 1<<20 {
			return nil
		}
	case len(head) < 8:
		return nil // too little to tell
	}
	return fmt.Errorf("%w: %s answers with something other than Kafka's protocol (first bytes %q)", ErrNotKafka, addr, head[:min(len(head), 16)])
}

// apiVersionsFrame is an ApiVersions v0 request as it goes on the wire: its size, then the
// request header v1 (key, version, correlation id, client id), then the (empty) body.
func apiVersionsFrame() []byte {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 0
	const clientID = "plimsoll"
	msg := binary.BigEndian.AppendUint16(nil, uint16(req.Key()))
	msg = binary.BigEndian.AppendUint16(msg, uint16(req.Version))
	msg = binary.BigEndian.AppendUint32(msg, sniffCorrelation)
	msg = binary.BigEndian.AppendUint16(msg, uint16(len(clientID)))
	msg = append(msg, clientID...)
	msg = req.AppendTo(msg)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(msg))), msg...)
}

// readSome reads what the peer sends within sniffWait, up to 64 bytes.
func readSome(conn net.Conn) ([]byte, error) {
	conn.SetReadDeadline(time.Now().Add(sniffWait))
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(conn, buf, 8)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return buf[:n], err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
