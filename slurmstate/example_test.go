package slurmstate_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing/fstest"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/slurmstate"
)

// A cluster's live state, as Command wrote it on a login node, loaded onto
// the cluster its slurm.conf describes: job 101 holds half of n2, n3 is
// drained, and a selection then sees only what is really free.
func Example() {
	site := fstest.MapFS{
		"slurm.conf": {Data: []byte("SelectType=select/cons_tres\n" +
			"NodeName=n[1-3] CPUs=16 RealMemory=32000\n" +
			"PartitionName=batch Nodes=n[1-3] Default=YES\n")},
		"state/nodes.txt": {Data: []byte(
			"NodeName=n1 CPUAlloc=0 CPUTot=16 RealMemory=32000 AllocMem=0 State=IDLE Partitions=batch\n" +
				"NodeName=n2 CPUAlloc=8 CPUTot=16 RealMemory=32000 AllocMem=8000 State=MIXED Partitions=batch\n" +
				"NodeName=n3 CPUAlloc=0 CPUTot=16 RealMemory=32000 AllocMem=0 State=IDLE+DRAIN Partitions=batch Reason=disk\n")},
		"state/jobs.txt": {Data: []byte("101|batch|RUNNING|1|8|OK|2026-11-28T12:00:00|n2\n")},
	}
	cfg, err := slurmconf.ParseFile(site, "slurm.conf")
	if err != nil {
		panic(err)
	}
	cluster, err := selectnodes.FromConfig(cfg)
	if err != nil {
		panic(err)
	}
	state, err := fs.Sub(site, "state") // the folder Command wrote (os.DirFS on disk)
	if err != nil {
		panic(err)
	}
	st, err := slurmstate.ReadDir(state, time.UTC, slurmstate.Limits{}) // no reservations.txt: none
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC) // when nodes.txt was written
	loaded, err := st.Apply(cluster, now)
	if err != nil {
		panic(err)
	}
	fmt.Println("Slurm job 101 is job", loaded.IDs["101"], "here")

	p, err := cluster.SelectNodes(&selectnodes.Request{MinNodes: 2, CPUs: 24}, selectnodes.RunNow)
	fmt.Println("2 nodes, 24 CPUs:", p.Hostlist(), err)
	_, err = cluster.SelectNodes(&selectnodes.Request{MinNodes: 2, CPUs: 32}, selectnodes.RunNow)
	fmt.Println("2 nodes, 32 CPUs: busy:", errors.Is(err, selectnodes.ErrBusy))
	// Output:
	// Slurm job 101 is job 1 here
	// 2 nodes, 24 CPUs: n[1-2] <nil>
	// 2 nodes, 32 CPUs: busy: true
}
