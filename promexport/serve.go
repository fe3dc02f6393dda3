package promexport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrAddress is wrapped by ListenAddr's errors: an address plimsoll will not listen on.
var ErrAddress = errors.New("bad listen address")

// ListenAddr is plimsoll's one policy for an address it listens on (--metrics-listen, --ui): it
// checks the address and returns the one to listen on. A
// port alone (":9465" or "9465") listens on the loopback interface only, as does "localhost".
// Any other host must be an IP address, written out (0.0.0.0:9465 for every interface): a host
// name is refused, since what it resolves to, and so who can reach the endpoint, is not
// visible in the command. Port 0 picks a free port.
func ListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if _, perr := strconv.ParseUint(addr, 10, 16); perr != nil {
			return "", fmt.Errorf("%w %q: give [HOST]:PORT, e.g. :PORT (this machine only) or 0.0.0.0:PORT (every interface)", ErrAddress, addr)
		}
		host, port = "", addr
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("%w %q: the port must be a number from 0 to 65535 (0: any free port)", ErrAddress, addr)
	}
	switch {
	case host == "" || strings.EqualFold(host, "localhost"):
		host = "127.0.0.1"
	case net.ParseIP(host) == nil:
		return "", fmt.Errorf("%w %q: give the host as an IP address (127.0.0.1 for this machine only, 0.0.0.0 for every interface), not a name", ErrAddress, addr)
	}
	return net.JoinHostPort(host, port), nil
}

// Server serves an HTTP handler on a listener of its own until Close.
type Server struct {
	srv  *http.Server
	addr net.Addr
	done chan error
}

// Serve listens on addr (checked by ListenAddr) and serves h there in the background. It fails
// at once when the address cannot be bound (e.g. a port in use).
func Serve(addr string, h http.Handler) (*Server, error) {
	a, err := ListenAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, err
	}
	s := &Server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, addr: ln.Addr(), done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on (with the port chosen for port 0).
func (s *Server) Addr() net.Addr { return s.addr }

// URL is the server's address as a URL with path, e.g. http://127.0.0.1:9465/metrics.
func (s *Server) URL(path string) string { return "http://" + s.addr.String() + path }

// Loopback reports whether only this machine can reach the server.
func (s *Server) Loopback() bool {
	ta, ok := s.addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// Close stops the server, letting requests under way finish for up to 5 seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
