package placementtest_test

import (
	"fmt"
	"testing"

	"github.com/hpcsched/hpcsched/placementtest"
)

// printTB stands in for the *testing.T a test function receives: it
// prints what a failed assertion reports.
type printTB struct{ testing.TB }

func (printTB) Helper()                           {}
func (printTB) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (printTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// In a _test.go file, t is the test's *testing.T: load the site's
// slurm.conf (and the topology.conf beside it, if any), describe a load,
// and state requests in sbatch's words. A failed assertion reports the
// request, what happened instead and the pipeline's explanation.
func Example() {
	t := printTB{} // func TestPlacement(t *testing.T) { ... }
	site := placementtest.Load(t, "testdata/site.conf")
	site.Request(t, "-N2").RunsOn(t, "old[1-2]")
	site.Request(t, "-N2 -C new").Prefers(t, "new[1-4]", "gpu1")
	site.Request(t, "-p gpu --gres=gpu:a100:4").RunsOn(t, "gpu1")
	site.Request(t, "-N 20").IsRejected(t, "node_config")

	site.Running(t, "old[1-4]") // every old node busy
	fmt.Println(site.Request(t, "-N2 -C old").Answer().Class())
	ok := site.Request(t, "-N2").RunsOn(t, "old[1-2]") // fails: prints why
	fmt.Println(ok)
	// Output:
	// busy
	// FAIL: placementtest: "-N2": want it on old[1-2], but it runs on new[1-2] in partition batch
	// partition batch, mode RunNow, 2..2 nodes (desired 2)
	//   node set old[1-4] (weight 1, features ib,old, 4 nodes): 4 candidates, 4 available, 0 usable now
	//   node set new[1-4] (weight 10, features ib,new, 4 nodes): 4 candidates, 4 available, 4 usable now
	//   partition batch is up; its access, memory and time limits allow the job
	//   8 candidate nodes in 2 node sets
	//   all node sets: selector chose new[1-2] (weight 20)
	// result: runnable on new[1-2]
	//
	// false
}
