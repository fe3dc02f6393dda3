package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/promexport"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
)

// AddrError is a --ui address that cannot be served: unparseable, in use, or not this host's.
type AddrError struct {
	Addr string
	Msg  string
	Err  error
}

func (e *AddrError) Error() string { return e.Addr + ": " + e.Msg }
func (e *AddrError) Unwrap() error { return e.Err }

// ErrInUse is wrapped when the address is in use.
var ErrInUse = errors.New("address in use")

// Server serves the live page of one search. Its methods are safe for concurrent use.
type Server struct {
	ln  net.Listener
	srv *http.Server
	// Grace is how long Close waits for a page polled within the last Recent to fetch the report.
	Grace, Recent time.Duration
	now           func() time.Time

	mu        sync.Mutex
	store     string // the search's results file
	total     func(limit.Progress) float64
	state     report.Live
	version   int    // bumped by every change of state
	json      []byte // live.json at version jsonV
	jsonV     int
	final     []byte // the report, once the search has ended
	polled    time.Time
	delivered chan struct{} // closed once a poll has carried the report
	gave      bool
}

// Listen binds addr (PORT, :PORT or IP:PORT; without a host, or localhost, 127.0.0.1) without
// serving yet,
// so that a bad or busy address is refused before anything else starts.
func Listen(addr string) (*Server, error) {
	hp, err := hostPort(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", hp)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, &AddrError{Addr: addr, Msg: "the address is in use: pick another port, or port 0 for any free one", Err: ErrInUse}
		}
		return nil, &AddrError{Addr: addr, Msg: fmt.Sprintf("cannot listen there (%v): give a port, or host:port of this machine", err), Err: err}
	}
	s := &Server{ln: ln, Grace: 3 * time.Second, Recent: 10 * time.Second, now: time.Now, delivered: make(chan struct{}),
		total: func(limit.Progress) float64 { return 0 }}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /live.json", s.liveJSON)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	return s, nil
}

// hostPort is addr as plimsoll's listen-address policy (promexport.ListenAddr) resolves it, the
// same for --ui as for --metrics-listen, or an *AddrError.
func hostPort(addr string) (string, error) {
	hp, err := promexport.ListenAddr(addr)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("%v %q: ", promexport.ErrAddress, addr))
		return "", &AddrError{Addr: addr, Msg: msg, Err: err}
	}
	return hp, nil
}

// URL is where the page is served.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// Serve is the one call a command makes: Listen on addr, Follow j, and print the page's URL
// on w. The command calls Finish with the search's results when it ends, and Close.
func Serve(addr string, j *limit.Job, w io.Writer) (*Server, error) {
	s, err := Listen(addr)
	if err != nil {
		return nil, err
	}
	s.Follow(j)
	fmt.Fprintf(w, "live page: %s\n", s.URL())
	return s, nil
}

// Follow feeds the page from j's hooks, keeping the ones j already has, and starts serving.
func (s *Server) Follow(j *limit.Job) {
	s.mu.Lock()
	s.store = j.Store()
	trial, hold := (j.Base.Spec.Warmup + j.Base.Spec.Duration).Seconds(), j.Hold
	if hold == 0 {
		hold = 2 * j.Base.Spec.Duration
	}
	s.total = func(p limit.Progress) float64 {
		if p.Hold {
			return (j.Base.Spec.Warmup + hold).Seconds()
		}
		return trial
	}
	s.mu.Unlock()
	second, progress := j.Base.Load.Progress, j.Search.Progress
	j.Base.Load.Progress = func(sec loadgen.Second) {
		s.Second(sec)
		if second != nil {
			second(sec)
		}
	}
	j.Search.Progress = func(p limit.Progress) {
		s.Progress(p)
		if progress != nil {
			progress(p)
		}
	}
	go s.srv.Serve(s.ln)
}

// Second adds one second of the running trial.
func (s *Server) Second(sec loadgen.Second) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Seconds = append(s.state.Seconds, sec)
	s.version++
}

// Progress notes a trial beginning or ending, and reads the results file again.
func (s *Server) Progress(p limit.Progress) {
	sf, err := results.LoadSearch(s.store)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !p.Done {
		s.state.Seconds = nil
	}
	if err == nil {
		s.state.Search = sf
	}
	s.state.Trial, s.state.Total = &p, s.total(p)
	s.version++
}

// Finish makes the page the search's report.
func (s *Server) Finish(sf *results.SearchFile) error {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, sf); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.final = b.Bytes()
	s.version++
	return nil
}

// Close stops serving. After Finish, if a page has polled within Recent, it first waits up to
// Grace for that page to fetch the report.
func (s *Server) Close() error {
	s.mu.Lock()
	wait := s.final != nil && !s.polled.IsZero() && s.now().Sub(s.polled) < s.Recent
	s.mu.Unlock()
	if wait {
		select {
		case <-s.delivered:
		case <-time.After(s.Grace):
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	s.ln.Close() // closed already if Follow served it; not otherwise
	return err
}

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	final, st := s.final, s.snapshot()
	s.mu.Unlock()
	var b bytes.Buffer
	if final != nil {
		b.Write(final)
	} else if err := report.WriteLivePage(&b, st); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	send(w, "text/html; charset=utf-8", b.Bytes())
}

// snapshot is a copy of the state the renderer may read without the lock; s.mu is held.
func (s *Server) snapshot() report.Live {
	st := s.state
	st.Seconds = slices.Clone(st.Seconds)
	return st
}

// liveState is live.json: the changing part of the page, or the report once done.
type liveState struct {
	Done    bool   `json:"done"`
	HTML    string `json:"html"`
	Trials  int    `json:"trials"`  // trials stored so far
	Seconds int    `json:"seconds"` // seconds of the running trial so far
}

func (s *Server) liveJSON(w http.ResponseWriter, _ *http.Request) {
	b, done, err := s.render()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	s.polled = s.now()
	if done && !s.gave {
		s.gave = true
		defer close(s.delivered)
	}
	s.mu.Unlock()
	send(w, "application/json", b)
}

// render is live.json for the current state, drawn again only when the state has changed.
func (s *Server) render() ([]byte, bool, error) {
	s.mu.Lock()
	v, cached, final, st := s.version, s.json, s.final, s.snapshot()
	fresh := cached != nil && s.jsonV == v
	s.mu.Unlock()
	if fresh {
		return cached, final != nil, nil
	}
	ls := liveState{Done: final != nil, HTML: string(final), Seconds: len(st.Seconds)}
	if st.Search != nil {
		ls.Trials = len(st.Search.Trials)
	}
	if final == nil {
		var b bytes.Buffer
		if err := report.WriteLiveBody(&b, st); err != nil {
			return nil, false, err
		}
		ls.HTML = b.String()
	}
	out, err := json.Marshal(ls)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	if s.version == v {
		s.json, s.jsonV = out, v
	}
	s.mu.Unlock()
	return out, ls.Done, nil
}

func send(w http.ResponseWriter, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}
