package slurmconf

import (
	"errors"
	"math"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"NodeName=DEFAULT CPUs=4\nNodeName=n[1-4] Feature=a,b Gres=gpu:v100:2\nPartitionName=p Nodes=ALL Default=YES MaxTime=1-00:00:00 OverSubscribe=FORCE:4\n",
	"ClusterName = \"x y\" # c\nSchedulerParameters=bf_window=10,\\\nbf_continue\nInclude other.conf\n",
	"SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Switches=s0 LinkSpeed=10\nBlockName=b Nodes=n1\nBlockSizes=1,2\n",
	"NodeName=a Name=gpu Type=v100 Count=4G File=/dev/nvidia[0-3]\nAutoDetect=off\n",
	"X=\"unterminated\n", "=\n", "NodeName=tux[5-3]\n",
	// budgets: huge counts, long lines
	"\uFEFFNodeName=n1 CPUs=4\n",
	"NodeName=n1 Boards=1073741824 SocketsPerBoard=1073741824\n",
	"NodeName=n1 Gres=gpu:9223372036854775807,gpu:2\n",
	"NodeName=DEFAULT A=1 B=2 CPUs=2\nNodeName=DEFAULT A=3 Sockets=2\nNodeName=n[1-2] A=4\nPartitionName=DEFAULT X=1\nPartitionName=p Nodes=n[1-2]\n",
	"NodeName=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx[0-1023][0-1023]\n",
	// folded lines
	"NodeName=n1 CPUs=2\n NodeName=n[2-3] CPUs=2 # c\nNodeName=DEFAULT A=1\nNodeName=n4 CPUs=2\nNodeName=n5 CPUs=2\nNodeName=n1 CPUs=2\n",
	// grouped lines, not neighbours
	"NodeName=g1 CPUs=8 Feature=gpu\nNodeName=c[1-2] CPUs=4\nNodeName=g2 CPUs=8 Feature=gpu\nNodeName=c3 CPUs=4\nNodeName=g[3-4] CPUs=8 Feature=gpu\nPartitionName=p Nodes=ALL\n",
}

// checkOrder requires a parsed Config's recorded order to hold (no
// fallback), to list every name once, and to follow the text.
func checkOrder(t *testing.T, c *Config) {
	if _, ok := c.recordedOrder(); !ok {
		t.Fatalf("the recorded order of a parsed Config does not tile its names")
	}
	prev := -1
	count := 0
	for i, k := range c.NodeOrder() {
		count++
		off := c.Nodes[i].NamePos(k).Offset
		if off < prev {
			t.Fatalf("name %s at offset %d comes after one at %d", c.Nodes[i].Names[k], off, prev)
		}
		prev = off
	}
	if count != c.NodeCount() {
		t.Fatalf("NodeOrder gave %d names of %d", count, c.NodeCount())
	}
}

// checkFolded requires the lines folded into n to start, in order, at a
// name of theirs, on lines of the input that name NodeName.
func checkFolded(t *testing.T, input string, n *NodeLine) {
	prevStart, prevLine := 0, 0
	for j := range n.Lines() {
		start, end := n.LineStart(j), n.LineStart(j+1)
		pos := n.NamePos(start)
		if start >= end || (j > 0 && (start <= prevStart || pos.Line <= prevLine)) {
			t.Fatalf("line %d of %d: names [%d, %d) at %v after [%d, ...) at line %d", j, n.Lines(), start, end, pos, prevStart, prevLine)
		}
		if pos.Offset < 0 || pos.Offset+len("NodeName") > len(input) || !strings.EqualFold(input[pos.Offset:pos.Offset+len("NodeName")], "NodeName") {
			t.Fatalf("line %d of %d starts at %v, which is not a NodeName", j, n.Lines(), pos)
		}
		prevStart, prevLine = start, pos.Line
	}
}

// checkErr requires err to be nil or a positioned *Error inside the input.
func checkErr(t *testing.T, input string, err error) {
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is %T, want *Error", err, err)
	}
	lines := strings.Count(input, "\n") + 1
	if e.Pos.Line < 1 || e.Pos.Line > lines+1 {
		t.Fatalf("error line %d outside 1..%d: %v", e.Pos.Line, lines, err)
	}
	if e.Pos.Column < 0 || e.Pos.Offset < 0 || e.Pos.Offset > len(input) {
		t.Fatalf("column %d, offset %d outside the input: %v", e.Pos.Column, e.Pos.Offset, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		c, err := Parse(strings.NewReader(input))
		checkErr(t, input, err)
		if err == nil {
			_ = c.Validate()
			checkOrder(t, c)
			for i := range c.Nodes {
				if c.Nodes[i].CPUs < 0 || len(c.Nodes[i].Names) == 0 {
					t.Fatalf("bad node line %+v", c.Nodes[i])
				}
				checkFolded(t, input, &c.Nodes[i])
				sums := map[string]int64{} // per GRES name, over its types
				for _, g := range c.Nodes[i].Gres {
					if g.Count < 0 || sums[g.Name] > math.MaxInt64-g.Count {
						t.Fatalf("GRES counts %v overflow", c.Nodes[i].Gres)
					}
					sums[g.Name] += g.Count
				}
			}
		}
	})
}

func FuzzParseTopology(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		_, err := ParseTopology(strings.NewReader(input))
		checkErr(t, input, err)
	})
}

func FuzzParseGres(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		g, err := ParseGres(strings.NewReader(input))
		checkErr(t, input, err)
		if err == nil {
			for _, l := range g.Lines {
				if l.Count < 0 {
					t.Fatalf("negative count %+v", l)
				}
			}
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"60", "1-00:00:00", "INFINITE", "7-0", "1:2:3", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("%q gave negative %v", s, d)
		}
		if err == nil && d != Unlimited {
			back, err := ParseDuration(FormatDuration(d))
			if err != nil || back != d {
				t.Fatalf("%q: %v formats as %q which reads back as %v, %v", s, d, FormatDuration(d), back, err)
			}
		}
	})
}
