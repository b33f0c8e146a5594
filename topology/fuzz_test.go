package topology

import (
	"errors"
	"strings"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// FuzzFromConfig builds trees from arbitrary topology.conf text over a
// 16-node universe: no input panics, errors carry the position of a line
// of the input, and Fit and the metrics stay consistent on what builds.
func FuzzFromConfig(f *testing.F) {
	for _, s := range []string{
		"SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=n[4-7]\nSwitchName=top Switches=s[0-1]\n",
		"SwitchName=a Switches=b\nSwitchName=b Switches=a\n",
		"SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Nodes=n[1-2]\n",
		"SwitchName=c0 Switches=l0,c1\nSwitchName=l0 Nodes=n0\nSwitchName=c1 Switches=l1\nSwitchName=l1 Nodes=n15\n",
		"BlockName=b1 Nodes=n[0-1]\nBlockName=b2 Nodes=n[1-2]\nBlockSizes=2,4\n",
		"SwitchName=s0 Nodes=zz,n9\n",
	} {
		f.Add(s, false)
	}
	names := nodeNames(16)
	f.Fuzz(func(t *testing.T, input string, lenient bool) {
		top, err := slurmconf.ParseTopology(strings.NewReader(input))
		if err != nil {
			return
		}
		var opts []Option
		if lenient {
			opts = append(opts, Lenient())
		}
		tr, err := FromConfig(top, names, opts...)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if te.Pos.IsValid() && (te.Pos.Offset < 0 || te.Pos.Offset > len(input)) {
				t.Fatalf("position %v outside the input", te.Pos)
			}
			return
		}
		avail := tr.Covered()
		for s := range tr.Switches {
			if tr.Nodes(s).DifferenceCardinality(avail) != 0 {
				t.Fatalf("switch %s has nodes outside the covered ones", tr.Switches[s].Name)
			}
		}
		got, err := tr.Fit(avail, Request{Nodes: 2})
		if err != nil {
			return
		}
		b := bitset.New(16)
		for _, n := range got {
			b.Set(uint(n))
		}
		if len(got) != 2 || b.DifferenceCardinality(avail) != 0 {
			t.Fatalf("Fit gave %v from %v", got, avail)
		}
		s, ok := tr.LowestCommonSwitch(b)
		if !ok || !tr.Nodes(s).IsSuperSet(b) {
			t.Fatalf("lowest common switch of %v is %d, %v", got, s, ok)
		}
	})
}
