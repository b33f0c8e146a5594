package slurmconf

import (
	"math"
	"strings"
)

// NodeLine is one NodeName= line (with the DEFAULT values in force where
// it stands): the nodes it names share one configuration, Slurm's config
// record and, for selection, one node set.
type NodeLine struct {
	Names []string // NodeName expanded, in order
	Addrs []string // NodeAddr expanded; nil when not given
	// CPUs is the number of CPUs Slurm schedules: CPUs=, else the old Procs=,
	// else Boards*SocketsPerBoard*CoresPerSocket*ThreadsPerCore.
	CPUs            int
	Procs           int // Procs= as written (0 when absent)
	Boards          int
	SocketsPerBoard int
	CoresPerSocket  int
	ThreadsPerCore  int
	RealMemory      int64 // MB; Slurm's default is 1
	TmpDisk         int64 // MB
	Weight          int64 // lower is preferred; Slurm's default is 1
	Features        []string
	Gres            []Gres
	State           string // upper case; UNKNOWN when not given
	Extra           []Pair // keys not modelled above, kept in order
	Pos             Pos
}

// Sockets is the total number of sockets of each node.
func (n *NodeLine) Sockets() int { return n.Boards * n.SocketsPerBoard }

// Gres is one generic resource of a node: gpu:v100:4 is Name "gpu", Type
// "v100", Count 4.
type Gres struct {
	Name  string
	Type  string // "" when untyped
	Count int64
	// NoConsume marks a GRES that jobs may share without using it up.
	NoConsume bool
}

func (g Gres) String() string {
	s := g.Name
	if g.Type != "" {
		s += ":" + g.Type
	}
	if g.NoConsume {
		s += ":no_consume"
	}
	return s + ":" + formatCount(g.Count)
}

func formatCount(v int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if v >= u.size && v%u.size == 0 {
			return itoa(v/u.size) + u.suffix
		}
	}
	return itoa(v)
}

func buildNode(defaults, pairs []Pair) (NodeLine, error) {
	n := NodeLine{Boards: 1, SocketsPerBoard: 1, CoresPerSocket: 1, ThreadsPerCore: 1,
		RealMemory: 1, Weight: 1, State: "UNKNOWN", Pos: pairs[0].Pos}
	names, err := pairs[0].hosts()
	if err != nil {
		return n, err
	}
	if len(names) == 0 {
		return n, pairs[0].err("NodeName names no node")
	}
	n.Names = names
	var cpus, sockets int
	all := append(append([]Pair(nil), defaults...), pairs[1:]...)
	for _, p := range all {
		var err error
		switch strings.ToLower(p.Key) {
		case "nodeaddr":
			n.Addrs, err = p.hosts()
			if err == nil && len(n.Addrs) != len(n.Names) {
				err = p.err("NodeAddr names %d addresses for %d nodes", len(n.Addrs), len(n.Names))
			}
		case "cpus":
			cpus, err = p.count()
		case "procs":
			n.Procs, err = p.count()
		case "boards":
			n.Boards, err = positive(p)
		case "sockets":
			sockets, err = positive(p)
		case "socketsperboard":
			n.SocketsPerBoard, err = positive(p)
			sockets = 0 // the later of Sockets= and SocketsPerBoard= wins
		case "corespersocket":
			n.CoresPerSocket, err = positive(p)
		case "threadspercore":
			n.ThreadsPerCore, err = positive(p)
		case "realmemory":
			n.RealMemory, err = p.int(0, math.MaxInt64)
		case "tmpdisk":
			n.TmpDisk, err = p.int(0, math.MaxInt64)
		case "weight":
			n.Weight, err = p.int(0, math.MaxUint32)
		case "feature", "features":
			n.Features = p.list()
		case "gres":
			n.Gres, err = parseGresList(p)
		case "state":
			n.State = strings.ToUpper(p.Value)
		default:
			n.Extra = append(n.Extra, p)
		}
		if err != nil {
			return n, err
		}
	}
	if sockets > 0 {
		// Sockets= counts every socket of the node; spread them over the boards.
		n.SocketsPerBoard = max(1, sockets/n.Boards)
	}
	switch {
	case cpus > 0:
		n.CPUs = cpus
	case n.Procs > 0:
		n.CPUs = n.Procs
	default:
		n.CPUs = n.Boards * n.SocketsPerBoard * n.CoresPerSocket * n.ThreadsPerCore
	}
	return n, nil
}

func positive(p Pair) (int, error) {
	v, err := p.int(1, math.MaxInt32)
	return int(v), err
}

// parseGresList reads "gpu:v100:4,mps:100" (socket bindings such as
// "(S:0-1)" are accepted and ignored).
func parseGresList(p Pair) ([]Gres, error) {
	var out []Gres
	for _, item := range splitOutsideParens(p.Value) {
		if i := strings.IndexByte(item, '('); i >= 0 {
			item = item[:i]
		}
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		g, ok := parseGres(item)
		if !ok {
			return nil, p.err("Gres: %q is not name[:type][:count]", item)
		}
		out = append(out, g)
	}
	return out, nil
}

func parseGres(item string) (Gres, bool) {
	fields := strings.Split(item, ":")
	g := Gres{Name: fields[0], Count: 1}
	if g.Name == "" {
		return g, false
	}
	rest := fields[1:]
	if len(rest) > 0 {
		if c, ok := scaled(rest[len(rest)-1]); ok {
			g.Count = c
			rest = rest[:len(rest)-1]
		}
	}
	for _, f := range rest {
		switch {
		case strings.EqualFold(f, "no_consume"):
			g.NoConsume = true
		case f == "" || g.Type != "":
			return g, false
		default:
			g.Type = f
		}
	}
	return g, true
}

func splitOutsideParens(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
