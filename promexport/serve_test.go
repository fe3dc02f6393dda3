package promexport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestListenAddr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{":9465", "127.0.0.1:9465"},
		{"9465", "127.0.0.1:9465"},
		{"localhost:9465", "127.0.0.1:9465"},
		{"127.0.0.1:0", "127.0.0.1:0"},
		{"[::1]:9465", "[::1]:9465"},
		{"0.0.0.0:9465", "0.0.0.0:9465"},
		{"[::]:9465", "[::]:9465"},
		{"192.0.2.7:9465", "192.0.2.7:9465"},
	} {
		if got, err := ListenAddr(c.in); err != nil || got != c.want {
			t.Errorf("ListenAddr(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, says string }{
		{"", "[HOST]:PORT"},
		{"example.com:9465", "IP address"},
		{"metrics.internal:9465", "not a name"},
		{":http", "port must be a number"},
		{":70000", "port must be a number"},
		{"127.0.0.1", "[HOST]:PORT"},
		{"127.0.0.1:9465:1", "[HOST]:PORT"},
	} {
		_, err := ListenAddr(c.in)
		if !errors.Is(err, ErrAddress) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ListenAddr(%q): %v, want ErrAddress saying %q", c.in, err, c.says)
		}
	}
}

// TestServeAndWaitScrape: the endpoint serves the registry; WaitScrape returns once a scrape
// that began after it was called has been served, and not for one that began before.
func TestServeAndWaitScrape(t *testing.T) {
	e := New()
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	s, err := Serve("127.0.0.1:0", mux)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Loopback() || !strings.HasPrefix(s.URL("/metrics"), "http://127.0.0.1:") {
		t.Errorf("server at %s (loopback %v)", s.URL("/metrics"), s.Loopback())
	}
	if body := get(t, s.URL("/metrics")); !strings.Contains(body, "plimsoll_messages_sent_total{window=\"measured\"} 0") ||
		!strings.Contains(body, "process_cpu_seconds_total") {
		t.Errorf("scrape lacks plimsoll's or the process's metrics:\n%s", body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if e.WaitScrape(ctx) {
		t.Error("WaitScrape returned true with no scrape after it")
	}
	waited := make(chan bool)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		waited <- e.WaitScrape(ctx)
	}()
	for {
		get(t, s.URL("/metrics"))
		select {
		case ok := <-waited:
			if !ok {
				t.Error("WaitScrape timed out while scrapes were served")
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestServeRefuses: a bad address and a port in use fail at once.
func TestServeRefuses(t *testing.T) {
	if _, err := Serve("example.com:0", http.NotFoundHandler()); !errors.Is(err, ErrAddress) {
		t.Errorf("host name: %v", err)
	}
	s, err := Serve("127.0.0.1:0", http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Serve(s.Addr().String(), http.NotFoundHandler()); err == nil {
		t.Error("a second server on the same port started")
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
