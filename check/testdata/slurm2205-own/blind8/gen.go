//go:build ignore

// gen draws a blind set of cases for the emulator's record.sh across the
// whole space of placement questions: about a third each cons_tres without a
// tree (CR_Core and CR_Core_Memory), topology/tree (regular and uneven,
// two and three levels, select/linear and cons_tres) and overlapping
// partitions with limits (linear and cons_tres); every conf idle and with
// a load drawn at random. It writes the .conf and .topology files and
// cases.tsv into -out. The same seed gives the same set:
//
//	go run gen.go -seed 8 -prefix h -out .   # blind8
//	go run gen.go -seed 9 -prefix i -n 100 -confs 9 -shape 1 -out ../blind9
//
// With corner.go beside it, -corner draws the hard corner instead (see
// corner.go): go run gen.go corner.go -corner -seed 19 -prefix o -n 150
// -confs 10 -out ../blind19.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
)

type line struct {
	first, last int // node indexes, inclusive
	cpus, mem   int
	weight      int
	feats       []string
}

type part struct {
	name  string
	nodes []int
	text  string // the limits
}

type conf struct {
	name, file, topoFile string
	prefix               string
	n                    int
	linear, memory       bool
	lines                []line
	parts                []part
	leaves               [][]int // node indexes per leaf (nil: no tree)
	topoText             string
	defMemPerCPU         int
	shapes               []string // the request kinds to draw from (nil: every kind)
}

// newCornerConf draws a conf of the -corner mode; corner.go sets it, so
// that gen.go alone still runs (and draws the same sets) without it.
var newCornerConf func(rng *rand.Rand, setPrefix string, i int, nodePrefix string) *conf

func main() {
	seed := flag.Int64("seed", 8, "random seed")
	prefix := flag.String("prefix", "h", "conf file prefix (one letter per set)")
	total := flag.Int("n", 180, "number of cases (about)")
	out := flag.String("out", ".", "output folder")
	confs := flag.Int("confs", 0, "number of confs (0: one per 15 cases)")
	shape := flag.Int("shape", 0, "the first topology conf's tree shape (0-3, see drawTree)")
	corner := flag.Bool("corner", false, "draw cons_tres on uneven three-level trees only (needs corner.go)")
	flag.Parse()
	if *corner && newCornerConf == nil {
		log.Fatal("-corner needs corner.go: go run gen.go corner.go -corner ...")
	}
	rng := rand.New(rand.NewSource(*seed))
	nconf := max(3, (*total+7)/15)
	if *confs > 0 {
		nconf = *confs
	}
	var cases []string
	letters := []string{"a", "b", "c", "d", "e", "g", "k", "m", "n", "q", "r", "s", "t", "u", "v", "w", "z"}
	rng.Shuffle(len(letters), func(i, j int) { letters[i], letters[j] = letters[j], letters[i] })
	perConf := *total / nconf
	for i := 0; i < nconf; i++ {
		nodePrefix := letters[i%len(letters)] + letters[(i+5)%len(letters)]
		var c *conf
		if *corner {
			c = newCornerConf(rng, *prefix, i, nodePrefix)
		} else {
			c = newConf(rng, *prefix, i, *shape, nodePrefix)
		}
		writeFile(filepath.Join(*out, c.file), c.text())
		if c.topoFile != "-" {
			writeFile(filepath.Join(*out, c.topoFile), c.topoText)
		}
		k := perConf
		if i < *total%nconf {
			k++
		}
		cases = append(cases, c.cases(rng, k)...)
	}
	writeFile(filepath.Join(*out, "cases.tsv"), strings.Join(cases, "\n")+"\n")
}

func writeFile(path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.Intn(len(xs))] }

// newConf draws conf i: kinds cycle cons_tres, topology, partitions.
func newConf(rng *rand.Rand, setPrefix string, i, shape int, nodePrefix string) *conf {
	c := &conf{prefix: nodePrefix, topoFile: "-"}
	switch i % 3 {
	case 0:
		c.memory = i%2 == 0 || rng.Intn(3) == 0
		c.name = fmt.Sprintf("%s_ct%d", setPrefix, i)
		c.n = 10 + rng.Intn(27)
	case 1:
		s := (i/3 + shape) % 4
		c.linear = s < 2 // shapes 0 and 1 linear, 2 and 3 cons_tres
		c.memory = !c.linear && rng.Intn(4) == 0
		c.name = fmt.Sprintf("%s_topo%d", setPrefix, i)
		c.drawTree(rng, s)
		c.topoFile = c.name + ".topology"
	default:
		c.linear = (i/3)%2 == 0
		c.memory = !c.linear && rng.Intn(2) == 0
		c.name = fmt.Sprintf("%s_part%d", setPrefix, i)
		c.n = 10 + rng.Intn(23)
	}
	if c.linear {
		c.name += "_lin"
	} else if c.memory {
		c.name += "_mem"
	} else {
		c.name += "_ct"
	}
	c.file = c.name + ".conf"
	if c.topoFile != "-" {
		c.topoFile = c.name + ".topology"
	}
	c.drawLines(rng)
	c.drawPartitions(rng, i%3 == 2)
	return c
}

// drawTree draws the leaves: shape 0 regular two-level, 1 uneven
// three-level, 2 regular three-level, 3 uneven two-level.
func (c *conf) drawTree(rng *rand.Rand, shape int) {
	var sizes []int
	switch shape {
	case 0, 2:
		k, l := pick(rng, 4, 6, 8), 3+rng.Intn(3)
		if shape == 2 {
			l = pick(rng, 4, 6)
		}
		for range l {
			sizes = append(sizes, k)
		}
	default:
		for range 4 + rng.Intn(5) {
			sizes = append(sizes, 2+rng.Intn(5))
		}
	}
	idx := 0
	for _, s := range sizes {
		var leaf []int
		for range s {
			leaf = append(leaf, idx)
			idx++
		}
		c.leaves = append(c.leaves, leaf)
	}
	c.n = idx
	var b strings.Builder
	for j, leaf := range c.leaves {
		fmt.Fprintf(&b, "SwitchName=s%d Nodes=%s\n", j+1, c.hostlist(leaf))
	}
	if shape == 1 || shape == 2 {
		var groups [][]int // leaf numbers (1-based) per middle switch
		for j := 0; j < len(c.leaves); {
			g := 1 + rng.Intn(3)
			if shape == 2 {
				g = 2
			}
			var grp []int
			for ; g > 0 && j < len(c.leaves); g-- {
				j++
				grp = append(grp, j)
			}
			groups = append(groups, grp)
		}
		for j, g := range groups {
			fmt.Fprintf(&b, "SwitchName=t%d Switches=%s\n", j+1, hostlistNum("s", g))
		}
		fmt.Fprintf(&b, "SwitchName=root Switches=%s\n", hostlistNum("t", seq(1, len(groups))))
	} else {
		fmt.Fprintf(&b, "SwitchName=root Switches=%s\n", hostlistNum("s", seq(1, len(c.leaves))))
	}
	c.topoText = b.String()
}

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

func hostlistNum(p string, nums []int) string {
	var names []string
	for _, n := range nums {
		names = append(names, fmt.Sprintf("%s%d", p, n))
	}
	return hostlist.Compress(names)
}

func (c *conf) host(i int) string { return fmt.Sprintf("%s%02d", c.prefix, i+1) }

func (c *conf) hostlist(idx []int) string {
	var names []string
	for _, i := range idx {
		names = append(names, c.host(i))
	}
	return hostlist.Compress(names)
}

// drawLines splits the nodes into 1 to 4 NodeName lines in name order.
func (c *conf) drawLines(rng *rand.Rand) {
	k := pick(rng, 1, 2, 2, 3, 3, 4)
	cuts := map[int]bool{}
	for len(cuts) < k-1 && len(cuts) < c.n-1 {
		cuts[1+rng.Intn(c.n-1)] = true
	}
	bounds := []int{0}
	for b := range cuts {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	bounds = append(bounds, c.n)
	pool := []string{"fat", "ib", "sky", "amd", "hi", "lo", "big", "edge"}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	sameWeight := rng.Intn(4) == 0
	for j := 0; j+1 < len(bounds); j++ {
		l := line{first: bounds[j], last: bounds[j+1] - 1}
		l.cpus = pick(rng, 4, 8, 8, 12, 16, 16, 24, 32, 48)
		l.mem = l.cpus * pick(rng, 2000, 4000, 4000, 8000)
		l.weight = 1
		if !sameWeight && j > 0 {
			l.weight = pick(rng, 1, 2, 3, 5, 10)
		}
		if rng.Intn(2) == 0 || k > 1 && j > 0 {
			l.feats = append(l.feats, pool[j%len(pool)])
			if rng.Intn(4) == 0 {
				l.feats = append(l.feats, pool[(j+4)%len(pool)])
			}
		}
		c.lines = append(c.lines, l)
	}
	if len(c.lines) > 2 && rng.Intn(4) == 0 { // lines out of name order
		rng.Shuffle(len(c.lines), func(i, j int) { c.lines[i], c.lines[j] = c.lines[j], c.lines[i] })
	}
	c.defMemPerCPU = 0
	if c.memory && rng.Intn(3) > 0 {
		least := 1 << 30
		for _, l := range c.lines {
			least = min(least, l.mem/l.cpus)
		}
		c.defMemPerCPU = pick(rng, least/2, least)
	}
}

func (c *conf) all() []int { return seq(0, c.n-1) }

// drawPartitions: the default partition holds every node without limits
// (the load's jobs run there); then one or two (three or four for the
// partitions family) overlapping partitions with limits.
func (c *conf) drawPartitions(rng *rand.Rand, partFamily bool) {
	def := "Default=YES MaxTime=INFINITE"
	if c.defMemPerCPU > 0 {
		def = fmt.Sprintf("Default=YES DefMemPerCPU=%d MaxTime=INFINITE", c.defMemPerCPU)
	}
	c.parts = []part{{name: pick(rng, "all", "main", "debug", "batch"), nodes: c.all(), text: def}}
	more := rng.Intn(2)
	if partFamily {
		more = 3 + rng.Intn(2)
	}
	names := []string{"small", "large", "short", "wide", "few", "big", "gen", "low"}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for j := 0; j < more; j++ {
		p := part{name: names[j], nodes: c.subset(rng, partFamily)}
		p.text = c.limits(rng, len(p.nodes), partFamily)
		c.parts = append(c.parts, p)
	}
}

// subset is every node (outside the partitions family), or a run, or two.
func (c *conf) subset(rng *rand.Rand, partFamily bool) []int {
	if !partFamily || rng.Intn(4) == 0 {
		return c.all()
	}
	a := rng.Intn(c.n / 2)
	b := a + c.n/3 + rng.Intn(c.n-a-c.n/3)
	out := seq(a, b)
	if rng.Intn(3) == 0 && a > 2 {
		out = append(seq(0, 1), out...)
	}
	return out
}

func (c *conf) limits(rng *rand.Rand, size int, partFamily bool) string {
	var ls []string
	switch rng.Intn(6) {
	case 0, 1:
		ls = append(ls, fmt.Sprintf("MaxNodes=%d", 2+rng.Intn(4)))
	case 2:
		mn := 2 + rng.Intn(2)
		ls = append(ls, fmt.Sprintf("MinNodes=%d MaxNodes=%d", mn, mn+2+rng.Intn(3)))
	case 3:
		ls = append(ls, fmt.Sprintf("MaxNodes=%d MaxTime=%d", 2+rng.Intn(3), pick(rng, 30, 60, 120)))
	}
	if c.memory && rng.Intn(2) == 0 {
		least := 1 << 30
		for _, l := range c.lines {
			least = min(least, l.mem)
		}
		ls = append(ls, fmt.Sprintf("MaxMemPerNode=%d", least/2))
	}
	if !slices.ContainsFunc(ls, func(s string) bool { return strings.Contains(s, "MaxTime") }) {
		if partFamily && rng.Intn(4) == 0 {
			ls = append(ls, fmt.Sprintf("MaxTime=%d", pick(rng, 30, 60, 120)))
		} else {
			ls = append(ls, "MaxTime=INFINITE")
		}
	}
	return strings.Join(ls, " ")
}

func (c *conf) text() string {
	var b strings.Builder
	if c.linear {
		b.WriteString("SelectType=select/linear\n")
	} else {
		b.WriteString("SelectType=select/cons_tres\n")
		if c.memory {
			b.WriteString("SelectTypeParameters=CR_Core_Memory\n")
		} else {
			b.WriteString("SelectTypeParameters=CR_Core\n")
		}
	}
	if c.leaves != nil {
		b.WriteString("TopologyPlugin=topology/tree\n")
	}
	for _, l := range c.lines {
		fmt.Fprintf(&b, "NodeName=%s CPUs=%d RealMemory=%d Weight=%d", c.hostlist(seq(l.first, l.last)), l.cpus, l.mem, l.weight)
		if len(l.feats) > 0 {
			fmt.Fprintf(&b, " Feature=%s", strings.Join(l.feats, ","))
		}
		b.WriteString(" State=UNKNOWN\n")
	}
	for _, p := range c.parts {
		fmt.Fprintf(&b, "PartitionName=%s Nodes=%s %s State=UP\n", p.name, c.hostlist(p.nodes), p.text)
	}
	return b.String()
}

// cases draws k cases, the first half idle, the rest under one load.
func (c *conf) cases(rng *rand.Rand, k int) []string {
	busy := c.load(rng)
	var out []string
	for j := range k {
		b := "-"
		if j >= (k+1)/2 {
			b = busy
		}
		out = append(out, strings.Join([]string{c.file, b, c.request(rng), c.topoFile}, "\t"))
	}
	return out
}

// load is 15 to 45 % of the nodes in one to four hostlists, each a run
// of one to four nodes.
func (c *conf) load(rng *rand.Rand) string {
	want := max(1, c.n*(15+rng.Intn(31))/100)
	taken := map[int]bool{}
	var lists []string
	for len(taken) < want && len(lists) < 4 {
		start, size := rng.Intn(c.n), 1+rng.Intn(4)
		var run []int
		for i := start; i < c.n && i < start+size && len(taken) < want; i++ {
			if taken[i] {
				break
			}
			taken[i] = true
			run = append(run, i)
		}
		if len(run) > 0 {
			lists = append(lists, c.hostlist(run))
		}
	}
	return strings.Join(lists, " ")
}

func (c *conf) features() []string {
	var fs []string
	for _, l := range c.lines {
		for _, f := range l.feats {
			if !slices.Contains(fs, f) {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

// cpusWith is the CPUs of the nodes with feature f (every node for "").
func (c *conf) cpusWith(f string) int {
	t := 0
	for _, l := range c.lines {
		if f == "" || slices.Contains(l.feats, f) {
			t += l.cpus * (l.last - l.first + 1)
		}
	}
	return t
}

// largest is the largest of a line's values.
func (c *conf) largest(of func(line) int) int {
	m := 0
	for _, l := range c.lines {
		m = max(m, of(l))
	}
	return m
}

// request draws one salloc command line.
func (c *conf) request(rng *rand.Rand) string {
	shapes := []string{"N", "N", "N", "N", "n", "n", "n", "n", "Nrange", "Nrange", "contig", "contig",
		"w", "C", "C", "Cor", "Cand", "c", "tpn", "excl", "mem", "Nn", "Nn", "x"}
	if c.memory {
		shapes = append(shapes, "mem", "mpc", "mpc")
	}
	if c.shapes != nil {
		shapes = c.shapes
	}
	args := c.shape(rng, pick(rng, shapes...))
	switch {
	case len(c.parts) > 1 && c.leaves == nil && c.lines != nil && len(c.parts) > 2:
		args = c.partitionArgs(rng) + args
	case len(c.parts) > 1 && rng.Intn(5) == 0:
		args = "-p " + c.parts[1].name + " " + args
	}
	return strings.TrimSpace(args)
}

func (c *conf) partitionArgs(rng *rand.Rand) string {
	switch r := rng.Intn(10); {
	case r < 2:
		return ""
	case r < 4:
		a, b := 1+rng.Intn(len(c.parts)-1), rng.Intn(len(c.parts))
		if a == b {
			b = 0
		}
		return fmt.Sprintf("-p %s,%s ", c.parts[a].name, c.parts[b].name)
	default:
		p := c.parts[1+rng.Intn(len(c.parts)-1)]
		s := "-p " + p.name + " "
		if strings.Contains(p.text, "MaxTime=") && !strings.Contains(p.text, "MaxTime=INFINITE") && rng.Intn(2) == 0 {
			s += fmt.Sprintf("-t %s ", pick(rng, "20", "45", "90", "3:00:00"))
		}
		return s
	}
}

func (c *conf) nodes(rng *rand.Rand) int {
	if rng.Intn(3) == 0 {
		return 1 + rng.Intn(c.n)
	}
	return 1 + rng.Intn(max(1, c.n/2))
}

func (c *conf) cpus(rng *rand.Rand) int {
	t := c.cpusWith("")
	if rng.Intn(3) == 0 {
		return 1 + rng.Intn(t)
	}
	return 1 + rng.Intn(max(1, t/3))
}

func (c *conf) shape(rng *rand.Rand, s string) string {
	fs := c.features()
	switch s {
	case "n":
		return fmt.Sprintf("-n%d", c.cpus(rng))
	case "Nrange":
		a := c.nodes(rng)
		return fmt.Sprintf("-N%d-%d", a, a+1+rng.Intn(4))
	case "contig":
		if rng.Intn(2) == 0 {
			return fmt.Sprintf("-n%d --contiguous", c.cpus(rng))
		}
		return fmt.Sprintf("-N%d --contiguous", c.nodes(rng))
	case "w":
		return fmt.Sprintf("-N%d -w %s", 2+rng.Intn(3), c.host(rng.Intn(c.n)))
	case "x":
		a := rng.Intn(c.n - 2)
		return fmt.Sprintf("-N%d -x %s", c.nodes(rng), c.hostlist(seq(a, a+1+rng.Intn(2))))
	case "C":
		if len(fs) == 0 {
			break
		}
		if rng.Intn(2) == 0 {
			f := pick(rng, fs...)
			return fmt.Sprintf("-C %s -n%d", f, 1+rng.Intn(c.cpusWith(f)))
		}
		return fmt.Sprintf("-C %s -N%d", pick(rng, fs...), 1+rng.Intn(4))
	case "Cor":
		if len(fs) < 2 {
			break
		}
		return fmt.Sprintf("-N%d -C [%s|%s]", 1+rng.Intn(4), fs[0], fs[1])
	case "Cand":
		if len(fs) < 2 {
			break
		}
		a, b := fs[rng.Intn(len(fs))], fs[rng.Intn(len(fs))]
		if a == b {
			a, b = fs[0], fs[1]
		}
		if rng.Intn(3) == 0 {
			return fmt.Sprintf("-N2 -C %s*1&%s*1", a, b)
		}
		return fmt.Sprintf("-N3 -C [%s*1&%s*2]", a, b)
	case "c":
		return fmt.Sprintf("-n%d -c %d", 1+rng.Intn(12), pick(rng, 2, 4, 8))
	case "tpn":
		return fmt.Sprintf("--ntasks-per-node=%d -N%d", pick(rng, 2, 4, 8, 16), 1+rng.Intn(4))
	case "excl":
		return fmt.Sprintf("--exclusive -n%d", c.cpus(rng))
	case "mem":
		m := 1000 * (1 + rng.Intn(c.largest(func(l line) int { return l.mem })/1000))
		if m%4000 == 0 && rng.Intn(2) == 0 {
			return fmt.Sprintf("-N%d --mem=%dG", 1+rng.Intn(3), m/1000)
		}
		return fmt.Sprintf("-N%d --mem=%d", 1+rng.Intn(3), m)
	case "mpc":
		return fmt.Sprintf("-n%d --mem-per-cpu=%d", 1+rng.Intn(24), pick(rng, 1000, 2000, 3000, 5000, 8000))
	case "Nn":
		k := 1 + rng.Intn(4)
		return fmt.Sprintf("-N%d -n%d", k, k+rng.Intn(k*c.largest(func(l line) int { return l.cpus })))
	}
	return fmt.Sprintf("-N%d", c.nodes(rng))
}
