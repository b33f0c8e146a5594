package main

import (
	"fmt"
	"strings"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

const aFirst = "NodeName=nymfe[71-72] Feature=A\nNodeName=nymfe[73-74] Feature=A,B\n"
const abFirst = "NodeName=nymfe[73-74] Feature=A,B\nNodeName=nymfe[71-72] Feature=A\n"

func main() {
	constraint, err := features.Parse("A*1&B*2", features.Legacy())
	if err != nil {
		panic(err)
	}
	for _, order := range []struct{ name, lines string }{{"A-only line first", aFirst}, {"A,B line first", abFirst}} {
		cfg, err := slurmconf.Parse(strings.NewReader(order.lines + "PartitionName=debug Nodes=nymfe[71-74] Default=YES\n"))
		if err != nil {
			panic(err)
		}
		for _, mode := range []struct {
			name string
			opts []selectnodes.Option
		}{{"hpcsched", nil}, {"slurm 22.05", []selectnodes.Option{selectnodes.WithSlurmCompat()}}} {
			c, err := selectnodes.FromConfig(cfg, mode.opts...)
			if err != nil {
				panic(err)
			}
			p, err := c.SelectNodes(&selectnodes.Request{MinNodes: 2, Features: constraint}, selectnodes.RunNow)
			answer := "rejected: " + selectnodes.ClassName(err)
			if err == nil {
				answer = "runs on " + p.Hostlist()
			}
			fmt.Printf("%-18s %-12s %s\n", order.name, mode.name, answer)
		}
	}
}
