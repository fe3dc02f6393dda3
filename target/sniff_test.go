package target

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// TestNotKafka: a bootstrap that answers in another protocol is ErrNotKafka, named, within a few
// seconds (not the 15 s reach timeout); Kafka (kfake) and a closed port are not.
func TestNotKafka(t *testing.T) {
	httpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer httpSrv.Close()
	garbage := serve(t, func(c net.Conn) { c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")) })
	silent := serve(t, func(c net.Conn) { time.Sleep(5 * time.Second) })
	kafka, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer kafka.Close()
	cases := []struct {
		name, addr string
		want       string // "" = not ErrNotKafka
	}{
		{"http", strings.TrimPrefix(httpSrv.URL, "http://"), `answers HTTP ("HTTP/1.1 400 Bad Request")`},
		{"ssh", garbage, `answers with something other than Kafka's protocol (first bytes "SSH-2.0-OpenSSH_`},
		{"kafka", kafka.ListenAddrs()[0], ""},
		{"silent", silent, ""},
		{"closed port", closedPort(t), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := sniff(tc.addr)
			if took := time.Since(start); took > 2*sniffWait+time.Second {
				t.Errorf("sniff took %v", took)
			}
			if tc.want == "" && err != nil || tc.want != "" && (!errors.Is(err, ErrNotKafka) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.addr)) {
				t.Errorf("sniff(%s) = %v, want %q", tc.addr, err, tc.want)
			}
		})
	}
	// Through Brokers, as every command's first contact: fast, and not ErrUnreachable.
	start := time.Now()
	_, err = Target{Bootstrap: []string{strings.TrimPrefix(httpSrv.URL, "http://")}}.Brokers(context.Background())
	if !errors.Is(err, ErrNotKafka) || time.Since(start) > 5*time.Second {
		t.Errorf("Brokers on an HTTP server = %v after %v, want ErrNotKafka within 5s", err, time.Since(start))
	}
}

// serve answers every connection on a loopback port with handle, until the test ends.
func serve(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); handle(c) }()
		}
	}()
	return l.Addr().String()
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	return l.Addr().String()
}
