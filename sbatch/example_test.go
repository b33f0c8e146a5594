package sbatch_test

import (
	"fmt"

	"github.com/hpcsched/hpcsched/sbatch"
)

// Options are read in every spelling sbatch accepts and turn into the
// selection request for a partition.
func ExampleParse() {
	o, err := sbatch.Parse([]string{"-N2-4", "--ntasks-per-node", "8", "-c2", "--mem=4G", "-C", "ib&new", "-pbatch,debug", "-t", "1-12:00:00"})
	if err != nil {
		panic(err)
	}
	fmt.Println(o.MinNodes, o.MaxNodes, o.Partitions, o.TimeLimit)
	req, err := o.Request(o.Partitions[0])
	if err != nil {
		panic(err)
	}
	fmt.Println(req.Partition, req.CPUs, req.MinCPUsPerNode, req.MinMemoryPerNode, req.Features)

	_, err = sbatch.Parse([]string{"-N2", "--mem=4G", "--mem-per-cpu=1G"})
	fmt.Println(err)
	// Output:
	// 2 4 [batch debug] 36h0m0s
	// batch 32 16 4096 ib&new
	// sbatch: argument 3 ("--mem-per-cpu=1G"), offset 14: --mem and --mem-per-cpu are mutually exclusive (--mem is given too)
}

// Split reads a command line as a shell would, quotes and all.
func ExampleSplit() {
	args, err := sbatch.Split(`-N1 -C "[a*1&b*1]" --job-name='my job'`)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", args)
	// Output: ["-N1" "-C" "[a*1&b*1]" "--job-name=my job"]
}
