package slurmconf

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"strings"
)

// NodeName lines of one file that differ only in their names (and
// NodeAddr) are grouped into one NodeLine, their names appended in file
// order, whether the lines are neighbours or not. A site writing one line
// per node (NodeName=n1 CPUs=64, NodeName=n2 CPUs=64, ...) then costs one
// NodeLine, not one per node, and so does one alternating two kinds of
// node: a NodeLine is a configuration, as Slurm's config records are meant
// to be. Grouping loses nothing: NamePos gives the line each name came
// from, Config.NodeOrder the order of the file, and lines differing in any
// other value (Weight, Features, State, an unmodelled key, ...) stay apart.

// foldedLine is where a line folded into a NodeLine starts: Names[first:]
// up to the next foldedLine's first are its names, and ord is the place of
// its first name among all the names of the file (NodeOrder). It is kept
// as a packedLine.
type foldedLine struct {
	first, ord, line, column, offset int32
}

// packedLine is a foldedLine as a NodeLine keeps it, in 12 bytes: its
// first is NodeLine.lead plus its index while every line folded names one
// node (a file written a line per node), and NodeLine.firsts holds it
// otherwise. A line whose position does not fit is not folded.
type packedLine struct {
	ord     int32
	lineCol uint32 // line<<columnBits | column
	offset  int32
}

// columnBits is the bits of packedLine.lineCol that hold the column: a
// NodeName line starts within its first 127 bytes, and a file has fewer
// than 2^25 lines, or the line is not folded.
const columnBits = 7

// foldChunk is how many packedLines a chunk of NodeLine.folded (and of
// NodeLine.firsts) holds: chunks that fill up are kept, not copied into a
// larger slice.
const foldChunk = 4096

// foldedAt is the j-th line folded into n.
func (n *NodeLine) foldedAt(j int) foldedLine {
	p := n.folded[j/foldChunk][j%foldChunk]
	first := int32(n.lead + j)
	if n.firsts != nil {
		first = n.firsts[j/foldChunk][j%foldChunk]
	}
	return foldedLine{first: first, ord: p.ord, line: int32(p.lineCol >> columnBits),
		column: int32(p.lineCol & (1<<columnBits - 1)), offset: p.offset}
}

// foldedCount is the number of lines folded into n.
func (n *NodeLine) foldedCount() int {
	if len(n.folded) == 0 {
		return 0
	}
	return (len(n.folded)-1)*foldChunk + len(n.folded[len(n.folded)-1])
}

// NamePos is where the line defining Names[k] starts (the line's Pos when
// no line was folded into n). It is Pos for a k out of range.
func (n *NodeLine) NamePos(k int) Pos {
	if k < 0 || k >= len(n.Names) {
		return n.Pos
	}
	// the last folded line starting at or before k, if any
	j := sort.Search(n.foldedCount(), func(j int) bool { return int(n.foldedAt(j).first) > k }) - 1
	if j < 0 {
		return n.Pos
	}
	f := n.foldedAt(j)
	return Pos{File: n.Pos.File, Line: int(f.line), Column: int(f.column), Offset: int(f.offset)}
}

// Lines is the number of NodeName lines folded into n (1 when none was).
func (n *NodeLine) Lines() int { return 1 + n.foldedCount() }

// LineStart is the index in Names of the first name of the j-th line
// folded into n (0 for the first line; len(Names) for j = Lines()), so
// line j named Names[LineStart(j):LineStart(j+1)]. Slurm makes each line a
// config record of its own; a consumer that must do the same splits n
// with it. It panics for j outside 0..Lines().
func (n *NodeLine) LineStart(j int) int {
	switch {
	case j == 0:
		return 0
	case j == n.Lines():
		return len(n.Names)
	case j < 0 || j > n.Lines():
		panic(fmt.Sprintf("slurmconf: NodeLine.LineStart(%d) of a NodeLine of %d lines", j, n.Lines()))
	}
	return int(n.foldedAt(j - 1).first)
}

// sameConfig reports whether a and b differ at most in their names,
// addresses and positions. Extra pairs must match position and all, so
// only pairs both inherit from one DEFAULT line fold.
func sameConfig(a, b *NodeLine) bool {
	return a.CPUs == b.CPUs && a.Procs == b.Procs && a.Boards == b.Boards && a.SocketsPerBoard == b.SocketsPerBoard &&
		a.CoresPerSocket == b.CoresPerSocket && a.ThreadsPerCore == b.ThreadsPerCore && a.RealMemory == b.RealMemory &&
		a.TmpDisk == b.TmpDisk && a.Weight == b.Weight && a.State == b.State && (a.Addrs == nil) == (b.Addrs == nil) &&
		slices.Equal(a.Features, b.Features) && slices.Equal(a.Gres, b.Gres) && slices.Equal(a.Extra, b.Extra)
}

// fold appends n, whose first name is the ord-th of the file, to last
// when they share a configuration and file and n's position fits a
// foldedLine, reporting whether it did. The names are copied into the
// arena, so the text of n's line is not kept alive by them.
func (a *nameArena) fold(last, n *NodeLine, ord int) bool {
	if last.Pos.File != n.Pos.File || !sameConfig(last, n) {
		return false
	}
	first := len(last.Names)
	for _, v := range []int{first, ord, n.Pos.Offset} {
		if v < 0 || v > math.MaxInt32-len(n.Names) {
			return false
		}
	}
	if n.Pos.Line < 0 || n.Pos.Line >= 1<<(32-columnBits) || n.Pos.Column < 0 || n.Pos.Column >= 1<<columnBits {
		return false
	}
	count := last.foldedCount()
	if count == 0 {
		last.lead = first
	}
	if last.firsts == nil && first != last.lead+count {
		last.firsts = make([][]int32, len(last.folded)) // the lines before named one node each
		for k := range last.folded {
			last.firsts[k] = make([]int32, len(last.folded[k]), cap(last.folded[k]))
			for i := range last.firsts[k] {
				last.firsts[k][i] = int32(last.lead + k*foldChunk + i)
			}
		}
	}
	if k := len(last.folded) - 1; k < 0 || len(last.folded[k]) == foldChunk {
		// the first chunk grows as append grows it, so few folded lines
		// cost little; the next ones start full size
		size := min(len(last.folded), 1) * foldChunk
		last.folded = append(last.folded, make([]packedLine, 0, size))
		if last.firsts != nil {
			last.firsts = append(last.firsts, make([]int32, 0, size))
		}
	}
	k := len(last.folded) - 1
	last.folded[k] = append(last.folded[k], packedLine{ord: int32(ord),
		lineCol: uint32(n.Pos.Line)<<columnBits | uint32(n.Pos.Column), offset: int32(n.Pos.Offset)})
	if last.firsts != nil {
		last.firsts[k] = append(last.firsts[k], int32(first))
	}
	last.Names = a.appendAll(last.Names, n.Names)
	if n.Addrs != nil {
		last.Addrs = a.appendAll(last.Addrs, n.Addrs)
	}
	return true
}

// nameArena copies short strings into shared blocks, so a million node
// names cost their bytes and not a million small allocations, nor the
// lines they were cut from.
type nameArena struct {
	block strings.Builder
}

const arenaBlock = 64 << 10

// appendAll appends copies of names to dst, doubling dst when it is full
// (append grows a large slice by a quarter, copying it many times over).
func (a *nameArena) appendAll(dst, names []string) []string {
	if need := len(dst) + len(names); need > cap(dst) {
		dst = slices.Grow(dst, max(need, 2*len(dst))-len(dst))
	}
	for _, s := range names {
		dst = append(dst, a.copy(s))
	}
	return dst
}

// copy returns s as a substring of the current block. Bytes written to a
// strings.Builder never change, so the substrings stay valid and immutable
// when the block is later left for a new one.
func (a *nameArena) copy(s string) string {
	if len(s) > arenaBlock/4 {
		return strings.Clone(s)
	}
	if a.block.Len()+len(s) > a.block.Cap() {
		a.block = strings.Builder{}
		a.block.Grow(arenaBlock)
	}
	a.block.WriteString(s)
	all := a.block.String()
	return all[len(all)-len(s):]
}

// nodeGroups finds the NodeLine a new line joins: the one the line before
// joined (a file of ranges or of alike neighbours never hashes), else one
// of the lines whose configuration hashes alike.
type nodeGroups struct {
	seed    maphash.Seed
	byHash  map[uint64][]int32 // configuration hash -> indices in Config.Nodes
	last    int                // the NodeLine the last node line went to, -1 before any
	ordinal int                // names read so far: the next line's first name's place
}

func newNodeGroups() nodeGroups {
	return nodeGroups{seed: maphash.MakeSeed(), byHash: map[uint64][]int32{}, last: -1}
}

// add puts the node line n into cfg: into the NodeLine of its
// configuration when there is one (and n fits its position table), else
// as a NodeLine of its own.
func (g *nodeGroups) add(cfg *Config, names *nameArena, n *NodeLine) {
	ord := g.ordinal
	g.ordinal += len(n.Names)
	if g.last >= 0 && names.fold(&cfg.Nodes[g.last], n, ord) {
		return
	}
	h := configHash(g.seed, n)
	for _, k := range g.byHash[h] {
		if int(k) != g.last && names.fold(&cfg.Nodes[k], n, ord) {
			g.last = int(k)
			return
		}
	}
	if len(cfg.Nodes) == cap(cfg.Nodes) {
		// double: append grows a large slice by a quarter, copying every
		// 256-byte NodeLine about five times over
		cfg.Nodes = slices.Grow(cfg.Nodes, max(len(cfg.Nodes), 16))
	}
	n.ord = ord
	// the lists may be shared with other lines (lastValues, a DEFAULT
	// line's): a NodeLine has its own
	n.Features, n.Gres = slices.Clone(n.Features), slices.Clone(n.Gres)
	cfg.Nodes = append(cfg.Nodes, *n)
	g.last = len(cfg.Nodes) - 1
	if g.last <= math.MaxInt32 {
		g.byHash[h] = append(g.byHash[h], int32(g.last))
	}
}

// configHash hashes what sameConfig compares (and the file), so that lines
// sameConfig would fold hash alike.
func configHash(seed maphash.Seed, n *NodeLine) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [8]byte
	num := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	str := func(s string) {
		num(int64(len(s)))
		h.WriteString(s)
	}
	for _, v := range []int64{int64(n.CPUs), int64(n.Procs), int64(n.Boards), int64(n.SocketsPerBoard),
		int64(n.CoresPerSocket), int64(n.ThreadsPerCore), n.RealMemory, n.TmpDisk, n.Weight,
		int64(len(n.Features)), int64(len(n.Gres)), int64(len(n.Extra))} {
		num(v)
	}
	if n.Addrs != nil {
		num(1)
	}
	str(n.State)
	str(n.Pos.File)
	for _, f := range n.Features {
		str(f)
	}
	for _, r := range n.Gres {
		str(r.Name)
		str(r.Type)
		num(r.Count)
	}
	for _, p := range n.Extra {
		str(p.Key)
		str(p.Value)
		num(int64(p.Pos.Offset))
	}
	return h.Sum64()
}
