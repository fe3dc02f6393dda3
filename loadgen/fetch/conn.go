package fetch

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
)

// DialFunc opens a connection to a broker (plain TCP, or TLS with the client's configuration).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// conn is one connection to a broker that carries Fetch requests only, one at a time: the
// request written from a buffer it keeps, the response read into another it grows only.
type conn struct {
	c           net.Conn
	clientID    string
	correlation int32
	out, in     []byte
	expires     time.Time // the SASL session's end (KIP-368), zero if none: redial before it
}

// dial connects to addr, checks that the broker speaks Fetch v11 (ApiVersions v0) and
// authenticates with mech when there is one.
func dial(ctx context.Context, d DialFunc, mech sasl.Mechanism, addr, clientID string, timeout time.Duration) (*conn, error) {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := d(dctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &conn{c: nc, clientID: clientID}
	err = c.checkVersions(timeout)
	if err == nil && mech != nil {
		err = c.authenticate(dctx, mech, addr, timeout)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// request sends a kmsg request of a version whose request and response headers are not
// flexible and reads its response into resp.
func (c *conn) request(req kmsg.Request, resp kmsg.Response, timeout time.Duration) error {
	c.correlation++
	c.out = kmsg.NewRequestFormatter(kmsg.FormatterClientID(c.clientID)).AppendRequest(c.out[:0], req, c.correlation)
	body, err := c.roundTrip(c.out, timeout)
	if err != nil {
		return err
	}
	if len(body) < 4 || int32(binary.BigEndian.Uint32(body)) != c.correlation {
		return fmt.Errorf("%w: response out of order", ErrMalformed)
	}
	resp.SetVersion(req.GetVersion())
	return resp.ReadFrom(body[4:])
}

// authenticate runs SASL on the connection: SaslHandshake v1, then SaslAuthenticate v1 until
// the mechanism's session is done (KIP-152), as franz-go's own connections do.
func (c *conn) authenticate(ctx context.Context, mech sasl.Mechanism, addr string, timeout time.Duration) error {
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, mech.Name()
	hsResp := kmsg.NewPtrSASLHandshakeResponse()
	if err := c.request(hs, hsResp, timeout); err != nil {
		return fmt.Errorf("sasl handshake: %w", err)
	}
	if err := kerr.ErrorForCode(hsResp.ErrorCode); err != nil {
		return fmt.Errorf("sasl handshake (%s; the broker enables %v): %w", mech.Name(), hsResp.SupportedMechanisms, err)
	}
	session, write, err := mech.Authenticate(ctx, addr)
	if err != nil {
		return fmt.Errorf("sasl %s: %w", mech.Name(), err)
	}
	for done := false; !done || len(write) > 0; {
		req := kmsg.NewPtrSASLAuthenticateRequest()
		req.Version, req.SASLAuthBytes = 1, write
		resp := kmsg.NewPtrSASLAuthenticateResponse()
		start := time.Now()
		if err := c.request(req, resp, timeout); err != nil {
			return fmt.Errorf("sasl authenticate: %w", err)
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			msg := ""
			if resp.ErrorMessage != nil {
				msg = *resp.ErrorMessage
			}
			return fmt.Errorf("sasl authenticate: %w %s", err, msg)
		}
		if resp.SessionLifetimeMillis > 0 {
			c.expires = start.Add(time.Duration(resp.SessionLifetimeMillis) * time.Millisecond * 9 / 10)
		}
		write = nil
		if !done {
			if done, write, err = session.Challenge(resp.SASLAuthBytes); err != nil {
				return fmt.Errorf("sasl %s: %w", mech.Name(), err)
			}
		}
	}
	return nil
}

// checkVersions asks the broker its API versions and fails unless Fetch v11 is among them.
func (c *conn) checkVersions(timeout time.Duration) error {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 0
	resp := kmsg.NewPtrApiVersionsResponse()
	if err := c.request(req, resp, timeout); err != nil {
		return fmt.Errorf("api versions: %w", err)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == apiFetch {
			if k.MinVersion <= Version && Version <= k.MaxVersion {
				return nil
			}
			return fmt.Errorf("broker speaks Fetch v%d to v%d, not v%d", k.MinVersion, k.MaxVersion, Version)
		}
	}
	return fmt.Errorf("broker does not list Fetch among its APIs")
}

// fetch sends a Fetch request and parses its response into resp. The response's bytes stay
// valid until the next fetch.
func (c *conn) fetch(r *Request, resp *Response, timeout time.Duration) error {
	c.correlation++
	c.out = AppendRequest(c.out[:0], c.correlation, c.clientID, r)
	body, err := c.roundTrip(c.out, timeout)
	if err != nil {
		return err
	}
	if err := resp.Parse(body); err != nil {
		return err
	}
	if resp.Correlation != c.correlation {
		return fmt.Errorf("%w: correlation id %d, want %d", ErrMalformed, resp.Correlation, c.correlation)
	}
	return nil
}

// maxResponse bounds a response's size (franz-go's default BrokerMaxReadBytes).
const maxResponse = 100 << 20

// roundTrip writes req and reads one response into c.in, returning its bytes after the size.
func (c *conn) roundTrip(req []byte, timeout time.Duration) ([]byte, error) {
	if err := c.c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	if _, err := c.c.Write(req); err != nil {
		return nil, err
	}
	var size [4]byte
	if _, err := io.ReadFull(c.c, size[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(size[:])))
	if n < 4 || n > maxResponse {
		return nil, fmt.Errorf("%w: response of %d bytes", ErrMalformed, n)
	}
	if cap(c.in) < n {
		c.in = make([]byte, n)
	}
	c.in = c.in[:n]
	if _, err := io.ReadFull(c.c, c.in); err != nil {
		return nil, err
	}
	return c.in, nil
}

func (c *conn) close() { c.c.Close() }
