package slurmconf_test

import (
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/slurmconf"
)

func ExampleParse() {
	conf := `
SelectType=select/linear
NodeName=DEFAULT CPUs=16 RealMemory=64000
NodeName=nymfe[71-72] Feature=A
NodeName=nymfe[73-74] Feature=A,B Weight=5
PartitionName=debug Nodes=nymfe[71-74] Default=YES MaxTime=1-00:00:00
`
	c, err := slurmconf.Parse(strings.NewReader(conf))
	if err != nil {
		panic(err)
	}
	for _, n := range c.Nodes {
		fmt.Println(hostlist.Compress(n.Names), n.CPUs, n.Features, n.Weight)
	}
	p := c.Partitions[0]
	fmt.Println(p.Name, hostlist.Compress(p.Nodes), slurmconf.FormatDuration(p.MaxTime), c.SelectType)
	// Output:
	// nymfe[71-72] 16 [A] 1
	// nymfe[73-74] 16 [A B] 5
	// debug nymfe[71-74] 1-00:00:00 select/linear
}

func ExampleParse_error() {
	_, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-4]\nNodeName=m1 CPUs=lots\n"))
	fmt.Println(err)
	// Output: 2:18: CPUs: "lots" is not a whole number
}

func ExampleParseFile() {
	fsys := fstest.MapFS{
		"etc/slurm.conf": {Data: []byte("ClusterName=demo\nInclude /etc/slurm/nodes.conf\n")},
		"etc/nodes.conf": {Data: []byte("NodeName=n[1-8] CPUs=4\nPartitionName=all Nodes=ALL\n")},
	}
	c, err := slurmconf.ParseFile(fsys, "etc/slurm.conf")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.ClusterName, c.NodeCount(), c.Files)
	fmt.Println(hostlist.Compress(c.PartitionNodes(&c.Partitions[0])))
	// Output:
	// demo 8 [etc/slurm.conf etc/nodes.conf]
	// n[1-8]
}

func ExampleParseTopology() {
	t, err := slurmconf.ParseTopology(strings.NewReader(`
SwitchName=s0 Nodes=n[1-4]
SwitchName=s1 Nodes=n[5-8]
SwitchName=top Switches=s[0-1]
`))
	if err != nil {
		panic(err)
	}
	for _, s := range t.Switches {
		fmt.Println(s.Name, hostlist.Compress(s.Nodes), s.Switches)
	}
	// Output:
	// s0 n[1-4] []
	// s1 n[5-8] []
	// top  [s0 s1]
}

func ExampleParseDuration() {
	for _, s := range []string{"60", "02:00:00", "7-0", "INFINITE"} {
		d, _ := slurmconf.ParseDuration(s)
		fmt.Println(s, "=", slurmconf.FormatDuration(d))
	}
	// Output:
	// 60 = 01:00:00
	// 02:00:00 = 02:00:00
	// 7-0 = 7-00:00:00
	// INFINITE = UNLIMITED
}

// Lines configured alike are one NodeLine wherever they stand; NodeOrder
// and NodeNames give the nodes in the order of the file.
func ExampleConfig_NodeOrder() {
	conf := `
NodeName=gpu1 CPUs=64 Feature=gpu
NodeName=cpu[1-2] CPUs=128
NodeName=gpu2 CPUs=64 Feature=gpu
NodeName=cpu3 CPUs=128
`
	c, err := slurmconf.Parse(strings.NewReader(conf))
	if err != nil {
		panic(err)
	}
	for _, n := range c.Nodes {
		fmt.Println(hostlist.Compress(n.Names), n.CPUs, n.Lines(), "lines")
	}
	fmt.Println(c.NodeNames())
	for i, k := range c.NodeOrder() {
		n := &c.Nodes[i]
		fmt.Println(n.Names[k], "line", n.NamePos(k).Line)
	}
	// Output:
	// gpu[1-2] 64 2 lines
	// cpu[1-3] 128 2 lines
	// [gpu1 cpu1 cpu2 gpu2 cpu3]
	// gpu1 line 2
	// cpu1 line 3
	// cpu2 line 3
	// gpu2 line 4
	// cpu3 line 5
}
