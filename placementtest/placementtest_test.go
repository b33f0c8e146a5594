package placementtest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/placementtest"
)

func TestSentences(t *testing.T) {
	site := placementtest.Load(t, "testdata/site.conf")
	site.Request(t, "-N2").RunsOn(t, "old[1-2]")
	site.Request(t, "-N2 -C new").Prefers(t, "new[1-4]", "gpu1")
	site.Request(t, "--nodes=3 --constraint=ib").RunsWithin(t, "old[1-4]")
	site.Request(t, "-N 20").IsRejected(t, "node_config")
	site.Request(t, "-p gpu --gres=gpu:a100:4 -t 1:00:00").RunsOn(t, "gpu1")

	busy := placementtest.Load(t, "testdata/site.conf")
	busy.Running(t, "old[1-4]:cpus=16,end=2h").Running(t, "new[1-4]").Drain(t, "gpu1")
	busy.Request(t, "-N2 -p batch").IsRejected(t, "busy")
	busy.Request(t, "-N2 -p batch -t 30").StartsAt(t, busy.Now().Add(2*time.Hour))
	busy.Request(t, "-p gpu -N1").IsRejected(t, "part_config")

	resv := placementtest.Load(t, "testdata/site.conf")
	resv.Reserve(t, "old[1-2]", resv.Now().Add(30*time.Minute), time.Hour)
	resv.Request(t, "-N2 -t 1:00:00").RunsOn(t, "old[3-4]")
	resv.Request(t, "-N2 -t 20").RunsOn(t, "old[1-2]")
}

// A failing assertion fails the test and says why.
func TestFailuresExplain(t *testing.T) {
	site := placementtest.Load(t, "testdata/site.conf")
	rec := &recorder{TB: t}
	site.Request(t, "-N2").RunsOn(rec, "new[1-2]")
	site.Request(t, "-N 20").RunsWithin(rec, "old[1-4]")
	site.Request(t, "-N2").IsRejected(rec)
	if len(rec.errors) != 3 {
		t.Fatalf("want 3 failures, got %d: %v", len(rec.errors), rec.errors)
	}
	for _, e := range rec.errors {
		if !contains(e, "node set") && !contains(e, "set ") {
			t.Errorf("a failure without the explanation: %s", e)
		}
	}
}

func TestTable(t *testing.T) { placementtest.RunTable(t, "testdata/site.tsv") }

// The UB CCR micro cluster as shipped (../shared/data): the README's
// "Test your slurm.conf" example.
func TestUBCCRMicro(t *testing.T) {
	dir := shareddata.Dir()
	if dir == "" {
		t.Skip("../shared/data not found")
	}
	site := placementtest.Load(t, filepath.Join(dir, "slurm_configs", "ubccr_micro.slurm.conf"))
	site.Request(t, "-N2 -C CPU-M").RunsOn(t, "m[1-2]")
	site.Running(t, "g1:cpus=2").Request(t, "--gres=gpu:2 -n 4").RunsOn(t, "g1")
	site.Request(t, "-p debug -N3").IsRejected(t, "node_config") // debug has two nodes
	placementtest.RunTable(t, "testdata/ubccr.tsv", placementtest.ConfDir(filepath.Join(dir, "slurm_configs")))
}
