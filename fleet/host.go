package fleet

import (
	"fmt"
	"os"
	"strings"
)

// Host is where a worker ran, as its join said: its host name and its kernel's boot id.
type Host struct {
	Name   string
	BootID string
}

// BootIDFile holds the running kernel's boot id: one per machine (virtual or not) and boot,
// shared by every container on it, whatever their host names.
const BootIDFile = "/proc/sys/kernel/random/boot_id"

// ReadBootID reads the boot id in the file at path; "" when it cannot be read.
func ReadBootID(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 64 {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// SelfHost is this process's host: its name and its kernel's boot id, each "" when unknown.
func SelfHost() Host {
	name, _ := os.Hostname()
	return Host{Name: name, BootID: ReadBootID(BootIDFile)}
}

// machine is what makes two hosts one machine: the boot id, else (a worker that could not read
// it) the host name; "" when neither is known, which matches nothing.
func (h Host) machine() string {
	switch {
	case h.BootID != "":
		return "boot " + h.BootID
	case h.Name != "":
		return "name " + h.Name
	}
	return ""
}

// String names the host as a note does: its name and its boot id.
func (h Host) String() string {
	name := h.Name
	if name == "" {
		name = "unnamed"
	}
	if h.BootID == "" {
		return "host " + name
	}
	return fmt.Sprintf("host %s, boot id %s", name, h.BootID)
}

// HostNotes are the notes a run's result carries on where its workers ran (hosts, by worker
// index), when that makes them compete for CPU: workers meant for separate machines (spread:
// workers the user starts, rather than local ones) that shared one, and workers on the machine of
// the local brokers (brokers, nil when the cluster is not local). A note, not a failure: the
// verdict's host and client criteria judge what the sharing did.
func HostNotes(hosts map[int]Host, spread bool, brokers *Host) []string {
	var notes []string
	if spread {
		byMachine := map[string][]int{}
		var order []string
		for _, w := range sortedKeys(hosts) {
			m := hosts[w].machine()
			if m == "" {
				continue
			}
			if byMachine[m] == nil {
				order = append(order, m)
			}
			byMachine[m] = append(byMachine[m], w)
		}
		for _, m := range order {
			if ws := byMachine[m]; len(ws) > 1 {
				notes = append(notes, fmt.Sprintf("%s ran on one machine (%s): they shared its CPUs, so the run generated less than %d machines' load; start them on separate machines",
					named(ws), hosts[ws[0]], len(ws)))
			}
		}
	}
	if brokers == nil || brokers.machine() == "" {
		return notes
	}
	var beside []int
	for _, w := range sortedKeys(hosts) {
		if hosts[w].machine() == brokers.machine() {
			beside = append(beside, w)
		}
	}
	if len(beside) > 0 {
		they := "they compete"
		if len(beside) == 1 {
			they = "it competes"
		}
		notes = append(notes, fmt.Sprintf("%s ran on the machine of the local brokers (%s): %s with the brokers for its CPUs",
			named(beside), *brokers, they))
	}
	return notes
}

// named names workers as "worker 2" or "workers 0, 2" (as the errors naming missing ones do).
func named(is []int) string {
	ws := make([]string, len(is))
	for k, i := range is {
		ws[k] = fmt.Sprint(i)
	}
	if len(ws) == 1 {
		return "worker " + ws[0]
	}
	return "workers " + strings.Join(ws, ", ")
}
