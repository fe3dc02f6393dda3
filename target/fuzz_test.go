package target

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// FuzzParseBootstrap: ParseBootstrap never panics; what it accepts is a non-empty list of
// host:port entries without blanks around them, and its errors wrap ErrInvalid.
func FuzzParseBootstrap(f *testing.F) {
	for _, s := range []string{"b1:9092", "b1:9092, b2:9093,", "[::1]:9092", ":9092", "b1", ",,", "b1:9092,b2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseBootstrap(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseBootstrap(%q) error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if len(out) == 0 {
			t.Fatalf("ParseBootstrap(%q) accepted no servers", s)
		}
		for _, hp := range out {
			host, port, err := net.SplitHostPort(hp)
			if err != nil || host == "" || port == "" || strings.TrimSpace(hp) != hp || strings.Contains(hp, ",") {
				t.Fatalf("ParseBootstrap(%q) accepted %q", s, hp)
			}
		}
	})
}

// FuzzJudge: the bootstrap sniff's verdict on any first bytes never panics; an HTTP status line
// is always refused, a Kafka response to its request never, and every refusal wraps ErrNotKafka.
func FuzzJudge(f *testing.F) {
	f.Add([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\n"))
	f.Add([]byte{0, 0, 0, 10, 0x70, 0x6c, 0x6d, 0x73, 0, 0, 0, 0})
	f.Add([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
	f.Add([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46})
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, head []byte) {
		err := judge("h:1", head)
		if err != nil && !errors.Is(err, ErrNotKafka) {
			t.Fatalf("judge(%q) = %v: not ErrNotKafka", head, err)
		}
		if len(head) >= 8 && strings.HasPrefix(string(head), "HTTP/") && err == nil {
			t.Fatalf("judge(%q) took an HTTP answer for Kafka", head)
		}
		kafka := append([]byte{0, 0, 0, 6, 0x70, 0x6c, 0x6d, 0x73}, head...)
		if err := judge("h:1", kafka); err != nil {
			t.Fatalf("judge refused a Kafka answer %q: %v", kafka, err)
		}
	})
}
