package slurmstate

import (
	"io"
	"strconv"
	"strings"

	"github.com/hpcsched/hpcsched/position"
)

// Node is one node as `scontrol show node -o` reports it.
type Node struct {
	Name string
	// State is the base state (IDLE, MIXED, ALLOCATED, DOWN, FUTURE, ...)
	// and Flags what follows it after '+' (DRAIN, COMPLETING, RESERVED,
	// NOT_RESPONDING, ...), upper case; a trailing '*' (not responding)
	// becomes the flag NOT_RESPONDING.
	State string
	Flags []string
	// CPUTot and CPUAlloc are the node's CPUs and those allocated to jobs.
	CPUTot, CPUAlloc int
	// RealMemory and AllocMem are in MB.
	RealMemory, AllocMem int64
	// Features are the node's active features (ActiveFeatures).
	Features   []string
	Partitions []string
	// Reason is why the node is down or drained ("" for none).
	Reason string
	Pos    position.Position
}

// Drained reports whether the node takes no new jobs because of a DRAIN
// flag (DRAINING or DRAINED in sinfo's words) or a FAIL one (an
// administrator's "expected to fail": FAIL or FAILING in sinfo's words).
func (n *Node) Drained() bool {
	return n.hasFlag("DRAIN") || n.hasFlag("FAIL") || n.State == "FAIL" || n.State == "FAILING"
}

// Down reports whether the node is out of service: DOWN, FUTURE or not
// responding.
func (n *Node) Down() bool {
	return n.State == "DOWN" || n.State == "FUTURE" || n.hasFlag("NOT_RESPONDING")
}

func (n *Node) hasFlag(f string) bool {
	for _, g := range n.Flags {
		if g == f {
			return true
		}
	}
	return false
}

// ParseNodes reads `scontrol show node -o`. file names the input in errors.
// Every line must name its node (NodeName=) and give CPUTot; a key it does
// not model is skipped.
func ParseNodes(r io.Reader, file string, lim Limits) ([]Node, error) {
	var out []Node
	err := eachLine(r, file, lim, func(line string, n int) error {
		if strings.HasPrefix(line, "No nodes") {
			return nil
		}
		node, err := parseNode(line, position.Position{File: file, Line: n})
		if err != nil {
			return err
		}
		out = append(out, node)
		return nil
	})
	return out, err
}

func parseNode(line string, pos position.Position) (Node, error) {
	fields, bad := splitPairs(line)
	if bad > 0 {
		return Node{}, position.Errorf(at(pos, bad), "expected Key=Value")
	}
	node := Node{Pos: pos, CPUTot: -1}
	for _, f := range fields {
		if err := node.set(f); err != nil {
			return node, position.Errorf(at(pos, f.col), "%s: %v", f.key, err)
		}
	}
	switch {
	case node.Name == "":
		return node, position.Errorf(at(pos, 1), "no NodeName=")
	case node.CPUTot < 0:
		return node, position.Errorf(at(pos, 1), "node %s: no CPUTot=", node.Name)
	case node.CPUAlloc > node.CPUTot:
		return node, position.Errorf(at(pos, 1), "node %s: CPUAlloc %d is above CPUTot %d", node.Name, node.CPUAlloc, node.CPUTot)
	}
	return node, nil
}

func (n *Node) set(f field) error {
	var err error
	switch f.key {
	case "NodeName":
		if f.value == "" || strings.ContainsAny(f.value, ",[]") {
			return errorString("not one node name")
		}
		n.Name = f.value
	case "State":
		n.State, n.Flags, err = parseState(f.value)
	case "CPUTot":
		n.CPUTot, err = cpuCount(f.value)
	case "CPUAlloc":
		n.CPUAlloc, err = cpuCount(f.value)
	case "RealMemory":
		n.RealMemory, err = megabytes(f.value)
	case "AllocMem":
		n.AllocMem, err = megabytes(f.value)
	case "ActiveFeatures":
		n.Features = list(f.value)
	case "Partitions":
		n.Partitions = list(f.value)
	case "Reason":
		if !noneValue(f.value) {
			n.Reason = f.value
		}
	}
	return err
}

// parseState splits IDLE+DRAIN (or DOWN*) into the base state and flags.
func parseState(v string) (string, []string, error) {
	v = strings.ToUpper(v)
	var flags []string
	if s, ok := strings.CutSuffix(v, "*"); ok {
		v, flags = s, append(flags, "NOT_RESPONDING")
	}
	parts := strings.Split(v, "+")
	if parts[0] == "" {
		return "", nil, errorString("empty state")
	}
	for _, p := range parts {
		for _, c := range p {
			if (c < 'A' || c > 'Z') && c != '_' {
				return "", nil, errorString("not a node state: " + strconv.Quote(v))
			}
		}
	}
	return parts[0], append(flags, parts[1:]...), nil
}

// maxCPUs bounds one node's CPUs as selectnodes does (MaxNodeCPUs).
const maxCPUs = 1 << 24

func cpuCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxCPUs {
		return 0, errorString("not a CPU count from 0 to " + strconv.Itoa(maxCPUs))
	}
	return n, nil
}

// maxMB bounds memory: 2^53 MB, as slurmconf does.
const maxMB = 1 << 53

// megabytes reads a memory size in MB (scontrol prints plain MB).
func megabytes(v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSuffix(v, "M"), 10, 64)
	if err != nil || n < 0 || n > maxMB {
		return 0, errorString("not a size in MB")
	}
	return n, nil
}

func list(v string) []string {
	if noneValue(v) {
		return nil
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// at is pos at column col.
func at(pos position.Position, col int) position.Position {
	pos.Column = col
	return pos
}

type errorString string

func (e errorString) Error() string { return string(e) }
