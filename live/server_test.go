package live

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/workload"
)

func TestHostPort(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"8080", "127.0.0.1:8080"}, {":8080", "127.0.0.1:8080"}, {"0", "127.0.0.1:0"},
		{"localhost:9000", "127.0.0.1:9000"}, {"0.0.0.0:80", "0.0.0.0:80"}, {"[::1]:80", "[::1]:80"},
		{"abc", ""}, {"", ""}, {":99999", ""}, {"host:", ""}, {"host:http", ""}, {"-1", ""}, {"1:2:3", ""}, {"example.com:80", ""},
	} {
		got, err := hostPort(c.in)
		var ae *AddrError
		if got != c.want || (c.want == "") != errors.As(err, &ae) {
			t.Errorf("hostPort(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestCloseUnserved: a server that was never told to follow a search frees its address.
func TestCloseUnserved(t *testing.T) {
	s, err := Listen("0")
	if err != nil {
		t.Fatal(err)
	}
	addr := s.ln.Addr().String()
	s.Close()
	again, err := Listen(addr)
	if err != nil {
		t.Fatalf("the address stayed taken after Close: %v", err)
	}
	again.Close()
}

func TestListenInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("Listen on a busy address: %v, want ErrInUse", err)
	}
}

// follow serves the page of a job writing to a temporary directory.
func follow(t *testing.T) (*Server, *limit.Job, *[]string) {
	t.Helper()
	s, err := Listen("0")
	if err != nil {
		t.Fatal(err)
	}
	j := &limit.Job{Out: t.TempDir()}
	j.Base.Spec.Warmup, j.Base.Spec.Duration = 2*time.Second, 4*time.Second
	var hooked []string
	j.Base.Load.Progress = func(loadgen.Second) { hooked = append(hooked, "second") }
	j.Search.Progress = func(limit.Progress) { hooked = append(hooked, "progress") }
	s.Follow(j)
	t.Cleanup(func() { s.Close() })
	return s, j, &hooked
}

func get(t *testing.T, url string) string {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, r.StatusCode, err, b)
	}
	return string(b)
}

func state(t *testing.T, s *Server) liveState {
	t.Helper()
	var ls liveState
	if err := json.Unmarshal([]byte(get(t, s.URL()+"live.json")), &ls); err != nil {
		t.Fatal(err)
	}
	return ls
}

// searchFile writes a results file with a header and one trial, as a search has when its first
// trial ends.
func searchFile(t *testing.T, j *limit.Job) *results.SearchFile {
	t.Helper()
	spec := workload.Default()
	if err := results.Append(j.Store(), results.KindSearch, "", results.Search{Sizes: []int{100}, Config: &results.Config{Spec: spec, Brokers: 1}}); err != nil {
		t.Fatal(err)
	}
	tr := results.Trial{Step: &results.Step{Seq: 1, Size: 100, Rate: 1000, Phase: results.PhaseBracket, Attempt: 1}}
	tr.Verdict.State = "ok"
	if err := results.Append(j.Store(), results.KindTrial, "", tr); err != nil {
		t.Fatal(err)
	}
	sf, err := results.LoadSearch(j.Store())
	if err != nil {
		t.Fatal(err)
	}
	return sf
}

func TestLivePageFollowsTheSearch(t *testing.T) {
	s, j, hooked := follow(t)
	if page := get(t, s.URL()); !strings.Contains(page, "Starting: no trial has begun yet.") || !strings.Contains(page, `fetch("live.json"`) {
		t.Fatalf("the first page is not the live page:\n%s", page)
	}
	p := limit.Progress{Trial: 1, About: 5, Size: 100, Rate: 1000, Phase: results.PhaseBracket}
	j.Search.Progress(p)
	for i := 1; i <= 3; i++ {
		j.Base.Load.Progress(loadgen.Second{T: float64(i), Phase: "warmup", TargetMsgsPerSec: 1000, ProducedMsgsPerSec: 990,
			Publish: loadgen.SecondLatency{P50: 2, P99: 9, Count: 990}})
	}
	ls := state(t, s)
	if ls.Done || ls.Seconds != 3 || !strings.Contains(ls.HTML, "second 3 of 6.") || !strings.Contains(ls.HTML, `data-seconds="3"`) {
		t.Errorf("live.json after 3 seconds: done %v, %d seconds, html:\n%s", ls.Done, ls.Seconds, ls.HTML)
	}
	sf := searchFile(t, j)
	p.Done, p.Result = true, &sf.Trials[0]
	j.Search.Progress(p)
	if ls := state(t, s); ls.Trials != 1 || !strings.Contains(ls.HTML, "finished: ok.") {
		t.Errorf("live.json after the trial ended: %d trials, html:\n%s", ls.Trials, ls.HTML)
	}
	p.Trial, p.Done, p.Result, p.Hold = 2, false, nil, true
	j.Search.Progress(p)
	j.Base.Load.Progress(loadgen.Second{T: 1, Phase: "warmup"})
	if ls := state(t, s); ls.Seconds != 1 || !strings.Contains(ls.HTML, "second 1 of 10.") { // a hold: twice the window
		t.Errorf("a new trial should start a new series of seconds: %d seconds, html:\n%s", ls.Seconds, ls.HTML)
	}
	if err := s.Finish(sf); err != nil {
		t.Fatal(err)
	}
	ls = state(t, s)
	if !ls.Done || !strings.HasPrefix(ls.HTML, "<!DOCTYPE html>") || strings.Contains(ls.HTML, "live.json") {
		t.Errorf("after Finish live.json should carry the report: done %v\n%s", ls.Done, ls.HTML)
	}
	if page := get(t, s.URL()); page != ls.HTML {
		t.Error("after Finish the page is not the report live.json carries")
	}
	if code := status(t, s.URL()+"other"); code != http.StatusNotFound {
		t.Errorf("GET /other: %d, want 404", code)
	}
	if got := strings.Join(*hooked, ","); got != "progress,second,second,second,progress,progress,second" {
		t.Errorf("the job's own hooks saw %s: Follow must keep them", got)
	}
}

func status(t *testing.T, url string) int {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	return r.StatusCode
}

// TestCloseWaitsForAnOpenPage: a page that polled recently gets the report before the server
// stops; with none, Close does not wait.
func TestCloseWaitsForAnOpenPage(t *testing.T) {
	for _, c := range []struct {
		name     string
		polled   time.Duration // before Close; 0: never
		deliver  bool
		wantWait bool
	}{
		{"no page", 0, false, false},
		{"page gone", -time.Minute, false, false},
		{"page open, fetches the report", -time.Second, true, false},
		{"page open, silent", -time.Second, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _, _ := follow(t)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			s.now, s.Grace = func() time.Time { return now }, 300*time.Millisecond
			if err := s.Finish(&results.SearchFile{}); err != nil {
				t.Fatal(err)
			}
			if c.polled != 0 {
				s.polled = now.Add(c.polled)
			}
			if c.deliver {
				if ls := state(t, s); !ls.Done {
					t.Fatal("not done after Finish")
				}
			}
			start := time.Now()
			s.Close()
			if waited := time.Since(start) >= s.Grace; waited != c.wantWait {
				t.Errorf("Close waited %v (grace %v), want waiting %v", time.Since(start), s.Grace, c.wantWait)
			}
		})
	}
}

// FuzzHostPort: any --ui value is either refused as an *AddrError or turned into a host:port
// with a port net.Listen takes, and a value without a host gets loopback.
func FuzzHostPort(f *testing.F) {
	for _, s := range []string{"8080", ":0", "localhost:9000", "[::1]:80", "abc", "", "1:2:3", "::", "[::]:65535", ":65536"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		hp, err := hostPort(addr)
		if err != nil {
			var ae *AddrError
			if !errors.As(err, &ae) || hp != "" {
				t.Fatalf("hostPort(%q) = %q, %v: want an *AddrError and nothing else", addr, hp, err)
			}
			return
		}
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" {
			t.Fatalf("hostPort(%q) = %q: not host:port (%v)", addr, hp, err)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n > 65535 {
			t.Fatalf("hostPort(%q) = %q: port %q", addr, hp, port)
		}
		if !strings.Contains(addr, host) && host != "127.0.0.1" {
			t.Fatalf("hostPort(%q) = %q: a host it was not given", addr, hp)
		}
	})
}
