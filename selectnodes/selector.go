package selectnodes

import (
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// Selector is the selection plugin (Slurm's select_p_job_test and the load
// checks around it). The pipeline hands it candidate nodes that already
// meet the job's per-node constraints, in weight order; the selector
// decides which of them the load allows and which to take.
type Selector interface {
	// Filter writes into dst the nodes of cand that can take job under the
	// load in v. cand and dst may be the same set.
	Filter(v View, job *Job, cand, dst *bitset.BitSet)
	// JobTest picks nodes from avail (a subset of Filter's output) meeting
	// n; it reports false when it cannot. It must include job.Required.
	JobTest(v View, job *Job, avail *bitset.BitSet, n Counts) (*Placement, bool)
}

// JobHooks is implemented by selectors that keep their own tables
// (select_p_job_begin / select_p_job_fini). Cluster.Allocate and Release
// call them after updating the cluster's own state.
type JobHooks interface {
	JobBegin(job JobID, p *Placement)
	JobFini(job JobID, p *Placement)
}

// View is the load a selector sees: the live one, a copy WillRun releases
// jobs from, or none at all for TestOnly.
type View struct {
	c  *Cluster
	u  *usage
	ex *Explanation // where selectors note decisions, when explaining
}

// Cluster is the cluster being selected from.
func (v View) Cluster() *Cluster { return v.c }

// Idle is the idle bitmap of this view. Do not modify it.
func (v View) Idle() *bitset.BitSet { return v.u.idle }

// Share is the share bitmap of this view. Do not modify it.
func (v View) Share() *bitset.BitSet { return v.u.share }

// Jobs is the number of jobs on node i.
func (v View) Jobs(i int) int { return int(v.u.jobs[i]) }

// FreeCPUs is node i's CPUs not in use.
func (v View) FreeCPUs(i int) int { return v.c.effective(i).CPUs - v.u.cpus[i] }

// UsedCPUs is node i's CPUs in use.
func (v View) UsedCPUs(i int) int { return v.u.cpus[i] }

// FreeMemory is node i's memory (MB) not in use.
func (v View) FreeMemory(i int) int64 { return v.c.effective(i).RealMemory - v.u.mem[i] }

// placement assembles a Placement from the chosen nodes; cpus gives each
// node's CPU share.
func (v View) placement(job *Job, chosen []int, cpus func(i int) int, memory int64, exclusive bool) *Placement {
	c := v.c
	p := &Placement{Partition: job.Part.Name, Nodes: bitset.New(uint(len(c.nodes))), Exclusive: exclusive, Immediate: true}
	p.Alloc = make([]NodeAlloc, 0, len(chosen))
	p.Names = make([]string, 0, len(chosen))
	for _, i := range chosen {
		p.Nodes.Set(uint(i))
	}
	// index order, whatever order the nodes were chosen in
	for i, ok := p.Nodes.NextSet(0); ok; i, ok = p.Nodes.NextSet(i + 1) {
		a := NodeAlloc{Node: int(i), CPUs: cpus(int(i)), Memory: memory}
		v.takeGRES(int(i), job, &a)
		p.Alloc = append(p.Alloc, a)
		p.Names = append(p.Names, c.nodes[i].Name)
		p.TotalCPUs += a.CPUs
		p.Weight += c.nodes[i].Weight
	}
	return p
}

// eachBusy calls f for every node of b that runs a job under v, visiting
// words rather than nodes so idle stretches cost nothing.
func (v View) eachBusy(b *bitset.BitSet, f func(i uint)) {
	idle := v.u.idle.Words()
	for k, w := range b.Words() {
		for busy := w &^ idle[k]; busy != 0; busy &= busy - 1 {
			f(uint(k*64 + bits.TrailingZeros64(busy)))
		}
	}
}
