package slurmconf

import (
	"math"
	"strings"
)

// NodeLine is one configuration of nodes: a NodeName= line (with the
// DEFAULT values in force where it stands) and every other line of the same
// file that differs from it only in NodeName and NodeAddr, wherever it
// stands, folded in (see NamePos, Lines and LineStart). Its nodes share one
// configuration, a config record and, for selection, one node set, so a
// file with a line per node costs a record per kind of node. Names lists
// the names of its lines in file order; Config.NodeOrder interleaves the
// NodeLines' names back into the order of the file.
type NodeLine struct {
	Names []string // NodeName expanded, in order (of every line folded in)
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
	State           string         // upper case, words joined by '+' ("DOWN+DRAIN"); UNKNOWN when not given
	Extra           []Pair         // keys not modelled above, kept in order
	Pos             Pos            // where the (first) line starts
	ord             int            // the place of Names[0] among the file's names (order.go)
	lead            int            // the names of the first line, when lines are folded in
	folded          [][]packedLine // the lines folded in, in chunks of foldChunk (fold.go)
	firsts          [][]int32      // their first names' indices, unless implied by lead
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

// nodeBuild is a NodeLine being built, as a NodeName=DEFAULT template or
// as a node line copied from one, with what its CPU count still depends on.
type nodeBuild struct {
	n       NodeLine
	cpus    int
	sockets int
	addrPos Pos        // where NodeAddr was given, for the count check
	extra   defaultSet // a template's unmodelled pairs
	last    *lastValues
}

// lastValues holds the Feature= and Gres= values read before and what they
// gave: a file writing one line per node repeats a few values, and reading
// each again cost most of the time and garbage of such a file. At most
// maxKeptValues of each are kept (the first ones), so the cache costs no
// more than a few lines' worth. The lists are shared by the lines that gave
// them, which is why a line that becomes a NodeLine of its own gets copies
// (nodeGroups.add).
type lastValues struct {
	features map[string][]string
	gres     map[string][]Gres
}

const (
	maxKeptValues = 256
	maxKeptBytes  = 4096 // a longer value is read each time
)

func newNodeTemplate() *nodeBuild {
	return &nodeBuild{n: NodeLine{Boards: 1, SocketsPerBoard: 1, CoresPerSocket: 1, ThreadsPerCore: 1,
		RealMemory: 1, Weight: 1, State: "UNKNOWN"},
		last: &lastValues{features: map[string][]string{}, gres: map[string][]Gres{}}}
}

// buildNode builds the node line pairs from the template in force. Slices
// the template holds (Features, Gres, Addrs) are shared, not copied, so a
// long DEFAULT line costs its size once, not once per node line.
func buildNode(b *budget, tmpl *nodeBuild, pairs []Pair) (NodeLine, error) {
	s := nodeBuild{n: tmpl.n, cpus: tmpl.cpus, sockets: tmpl.sockets, addrPos: tmpl.addrPos, last: tmpl.last}
	s.n.Pos = pairs[0].Pos
	names, err := b.hosts(pairs[0], true)
	if err != nil {
		return s.n, err
	}
	if len(names) == 0 {
		return s.n, pairs[0].err("NodeName names no node")
	}
	s.n.Names = names
	if s.n.Extra, err = inherit(b, &tmpl.extra, s.n.Pos); err != nil {
		return s.n, err
	}
	for _, p := range pairs[1:] { // not applyAll: through an interface, s would escape to the heap
		if err := s.apply(b, p, false); err != nil {
			return s.n, err
		}
	}
	if s.n.Addrs != nil && len(s.n.Addrs) != len(s.n.Names) {
		return s.n, errAt(s.addrPos, "NodeAddr names %d addresses for %d nodes", len(s.n.Addrs), len(s.n.Names))
	}
	return s.n, s.finish()
}

// apply sets one key. A template keeps unmodelled keys in its defaultSet,
// where a later DEFAULT line can override them.
func (s *nodeBuild) apply(b *budget, p Pair, template bool) error {
	n := &s.n
	var err error
	var lower [len("socketsperboard")]byte
	switch string(lowerKey(p.Key, &lower)) { // no allocation, as ToLower's would be for every pair

	case "nodeaddr":
		n.Addrs, err = b.hosts(p, false)
		s.addrPos = p.ValuePos
	case "cpus":
		s.cpus, err = p.count()
	case "procs":
		n.Procs, err = p.count()
	case "boards":
		n.Boards, err = positive(p)
	case "sockets":
		s.sockets, err = positive(p)
	case "socketsperboard":
		n.SocketsPerBoard, err = positive(p)
		s.sockets = 0 // the later of Sockets= and SocketsPerBoard= wins
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
		var ok bool
		if n.Features, ok = s.last.features[p.Value]; !ok {
			keep := len(s.last.features) < maxKeptValues && len(p.Value) <= maxKeptBytes
			if keep { // the strings kept must not hold the whole line
				p.Value = strings.Clone(p.Value)
			}
			n.Features = p.list()
			if keep {
				s.last.features[p.Value] = n.Features
			}
		}
	case "gres":
		var ok bool
		if n.Gres, ok = s.last.gres[p.Value]; !ok {
			keep := len(s.last.gres) < maxKeptValues && len(p.Value) <= maxKeptBytes
			if keep {
				p.Value = strings.Clone(p.Value)
			}
			if n.Gres, err = parseGresList(p); err == nil && keep {
				s.last.gres[p.Value] = n.Gres
			}
		}
	case "state":
		n.State, err = nodeState(p)
	default:
		err = s.extra.keep(b, &n.Extra, p, template)
	}
	return err
}

// finish works out the CPU count, refusing a product that overflows.
func (s *nodeBuild) finish() error {
	n := &s.n
	if s.sockets > 0 {
		// Sockets= counts every socket of the node; spread them over the boards.
		n.SocketsPerBoard = max(1, s.sockets/n.Boards)
	}
	switch {
	case s.cpus > 0:
		n.CPUs = s.cpus
	case n.Procs > 0:
		n.CPUs = n.Procs
	default:
		cpus, ok := product(math.MaxInt32, n.Boards, n.SocketsPerBoard, n.CoresPerSocket, n.ThreadsPerCore)
		if !ok {
			return errAt(n.Pos, "Boards*SocketsPerBoard*CoresPerSocket*ThreadsPerCore = %d*%d*%d*%d is more than %d CPUs",
				n.Boards, n.SocketsPerBoard, n.CoresPerSocket, n.ThreadsPerCore, math.MaxInt32)
		}
		n.CPUs = cpus
	}
	return nil
}

// product multiplies positive factors, reporting false once the product
// passes limit (so it never overflows).
func product(limit int, factors ...int) (int, bool) {
	p := 1
	for _, f := range factors {
		if f <= 0 || p > limit/f {
			return 0, false
		}
		p *= f
	}
	return p, true
}

// knownNodeState reports whether slurm.conf's State= takes w: its
// manual's CLOUD, DOWN, DRAIN, FAIL, FAILING, FUTURE and UNKNOWN, IDLE and
// BUSY (discouraged but read), and DRAINED and DRAINING as Slurm prints a
// drained node.
func knownNodeState(w string) bool {
	switch w {
	case "UNKNOWN", "CLOUD", "DOWN", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "FUTURE", "IDLE", "BUSY":
		return true
	}
	return false
}

// nodeState reads State=, upper case, refusing a word Slurm does not
// take: a mistyped state ("DRIAN") would leave a node up that its
// administrator meant to keep jobs off.
func nodeState(p Pair) (string, error) {
	state := strings.ToUpper(p.Value)
	for w := range strings.SplitSeq(state, "+") {
		if !knownNodeState(w) {
			return "", p.err("unknown node State %q: want CLOUD, DOWN, DRAIN, FAIL, FAILING, FUTURE or UNKNOWN (joined with '+')", w)
		}
	}
	return state, nil
}

func positive(p Pair) (int, error) {
	v, err := p.int(1, math.MaxInt32)
	return int(v), err
}

// parseGresList reads "gpu:v100:4,mps:100" (socket bindings such as
// "(S:0-1)" are accepted and ignored). Items naming the same GRES (name,
// type and no_consume) are summed, and the sum over the types of a name
// must fit an int64 as well, so no consumer of the list can overflow.
func parseGresList(p Pair) ([]Gres, error) {
	var out []Gres
	totals := map[string]int64{} // per name, over its types
	index := map[Gres]int{}      // an item with Count 0 -> its place in out
	for _, it := range splitOutsideParens(p.Value) {
		item := it.text
		if i := strings.IndexByte(item, '('); i >= 0 {
			item = item[:i]
		}
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		at := p.within(item, it.off+len(it.text)-len(strings.TrimLeft(it.text, " \t")))
		if i := strings.LastIndexByte(item, ':'); i >= 0 && countLike(item[i+1:]) {
			if _, ok := scaled(item[i+1:]); !ok {
				return nil, at.err("Gres: the count %q of %q is negative or more than %d", item[i+1:], item, int64(math.MaxInt64))
			}
		}
		g, ok := parseGres(item)
		if !ok {
			return nil, at.err("Gres: %q is not name[:type][:count]", item)
		}
		if totals[g.Name] > math.MaxInt64-g.Count {
			return nil, at.err("Gres: the counts of %s add up to more than %d", g.Name, int64(math.MaxInt64))
		}
		totals[g.Name] += g.Count
		key := g
		key.Count = 0
		if k, ok := index[key]; ok {
			out[k].Count += g.Count // within totals[g.Name]: no overflow
			continue
		}
		index[key] = len(out)
		out = append(out, g)
	}
	return out, nil
}

// countLike reports whether s is written as a count (digits, after an
// optional '-', with an optional K, M, G or T) though it may not be one:
// a type is never all digits, so gpu:-1 or gpu:99999999999T is a count
// out of range, not a GPU of type "-1" counted once.
func countLike(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if n := len(s); n > 1 && strings.ContainsRune("kKmMgGtT", rune(s[n-1])) {
		s = s[:n-1]
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
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

// part is a piece of a value and its byte offset in it.
type part struct {
	text string
	off  int
}

func splitOutsideParens(s string) []part {
	var out []part
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, part{s[start:i], start})
				start = i + 1
			}
		}
	}
	return append(out, part{s[start:], start})
}

// lowerKey is key in lower case (ASCII), written into buf; a key longer
// than buf gives nil, which matches none of the keys apply names (the
// longest is SocketsPerBoard).
func lowerKey(key string, buf *[len("socketsperboard")]byte) []byte {
	if len(key) > len(buf) {
		return nil
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(key)]
}
