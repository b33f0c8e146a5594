package check_test

import (
	"fmt"
	"strings"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/slurmconf"
)

const exampleConf = `NodeName=old[1-4] CPUs=16 Weight=1 Feature=ib
NodeName=new[1-4] CPUs=32 Weight=10 Feature=ib,new
PartitionName=batch Nodes=ALL Default=YES
`

// A site answers requests written as sbatch command lines: where they
// would run now, or the class of the rejection.
func ExampleSite_Ask() {
	cfg, err := slurmconf.Parse(strings.NewReader(exampleConf))
	if err != nil {
		panic(err)
	}
	site, err := check.NewSite(cfg, check.Options{})
	if err != nil {
		panic(err)
	}
	if err := site.Run("old[1-3]"); err != nil { // a running job on three whole nodes
		panic(err)
	}
	for _, line := range []string{"-N2", "-N2 -C new", "-N9", "-p nosuch"} {
		a, err := site.Ask(line)
		if err != nil {
			panic(err)
		}
		if a.Err != nil {
			fmt.Printf("%-10s rejected: %s\n", line, a.Class())
			continue
		}
		fmt.Printf("%-10s runs on %s\n", line, a.Nodes)
	}
	// Output:
	// -N2        runs on old4,new1
	// -N2 -C new runs on new[1-2]
	// -N9        rejected: node_config
	// -p nosuch  rejected: invalid
}

// A table of expected placements (conf, load, request, expected; tab
// separated) runs case by case; each site is built once per conf and
// load.
func ExampleRunner() {
	table := "slurm.conf\t-\t-N2\told[1-2]\n" +
		"slurm.conf\told[1-2]\t-N2\told[3-4]\n" +
		"slurm.conf\t-\t-N3 -C new\tnew[1-2]\n"
	cases, err := check.ReadTable(strings.NewReader(table), "example.tsv")
	if err != nil {
		panic(err)
	}
	r := &check.Runner{Dir: "testdata/example"}
	for _, c := range cases {
		res := r.Run(c)
		fmt.Printf("line %d: pass %v, got %s\n", c.Line, res.Pass, res.Got)
	}
	// Output:
	// line 1: pass true, got old[1-2]
	// line 2: pass true, got old[3-4]
	// line 3: pass false, got new[1-3]
}
