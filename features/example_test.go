package features_test

import (
	"fmt"

	"github.com/hpcsched/hpcsched/features"
)

func ExampleParse() {
	// Four nodes: n0={f0}, n1={f1}, n2={f0,f2,f4}, n3={f0,f2,f3,f4}.
	ix := features.IndexNodes([][]string{{"f0"}, {"f1"}, {"f0", "f2", "f4"}, {"f0", "f2", "f3", "f4"}})
	for _, s := range []string{"f0&(f2|f3)", "f1|f0&f4", "f4&[f1|f0]"} {
		e, err := features.Parse(s)
		if err != nil {
			panic(err)
		}
		fmt.Println(s, "->", e.Nodes(ix))
	}
	// Output:
	// f0&(f2|f3) -> {2,3}
	// f1|f0&f4 -> {2,3}
	// f4&[f1|f0] -> {2,3}
}

func ExampleParse_syntaxError() {
	_, err := features.Parse("[a|b]&[c|d]")
	fmt.Println(err)
	// Output: constraint "[a|b]&[c|d]": offset 6: only one bracket group is allowed (the first is at offset 0)
}

func ExampleExpr_Counts() {
	e, err := features.Parse("[(knl&snc4)*4&haswell*1]")
	if err != nil {
		panic(err)
	}
	for _, c := range e.Counts() {
		fmt.Println(c.Term, "on at least", c.N, "nodes")
	}
	// Output:
	// (knl&snc4) on at least 4 nodes
	// haswell on at least 1 nodes
}

func ExampleLegacy() {
	// Slurm 2.0's grammar, decomposed as the Novotný thesis section 2.4.3 does.
	for _, s := range []string{"A|B&[C|D]|E", "A&B*1&C*2&D"} {
		e, err := features.Parse(s, features.Legacy())
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: per node %q, matching OR %v, counts %v\n", s, e.PerNode(), e.Alternatives(), e.Counts())
	}
	// Output:
	// A|B&[C|D]|E: per node "A|B&(C|D)|E", matching OR [C D], counts []
	// A&B*1&C*2&D: per node "A&D", matching OR [], counts [B*1 C*2]
}

func ExampleExpr_Validate() {
	ix := features.IndexNodes([][]string{{"ib", "rack1"}, {"ib", "rack2"}})
	e, _ := features.Parse("ib&gpu")
	fmt.Println(e.Validate(ix.Has))
	// Output: invalid feature specification "ib&gpu": no node has feature "gpu" (offset 3)
}
