package selectnodes

// The free CPUs of a busy node for a job whose room is CPUs alone. A
// ConsRes selection asks a node's free CPUs (free) from the picker, the
// shares and the counts, several times per chosen node; for a job that is
// not exclusive and asks no memory per CPU, no partition cap per node and
// no task layout (cpusOnly), on nodes whose configuration is what
// selection counts, the answer is the node's CPUs (times MaxShare for a
// shared job) less their load, at most its CPUs. Reading that directly
// instead of through free, effective and freeOf took a replay of many
// small jobs a few percent of its instructions.

// freeIsCPUsLeft reports whether free(v, job, i) is cpusLeft(v, job, i)
// on every node.
func freeIsCPUsLeft(v View, job *Job) bool {
	return !job.Exclusive && cpusOnly(job) && !(v.c.fastSchedule == 0 && v.c.reported != nil)
}

// cpusLeft is ConsRes.freeOf for such a job on node i.
func cpusLeft(v View, job *Job, i int) int {
	cpus := v.c.nodes[i].CPUs
	capacity := cpus
	if job.Shared {
		capacity = satMul(cpus, job.MaxShare)
	}
	return min(capacity-v.u.cpus[i], cpus)
}

// cpusLeftFunc is cpusLeft for one view and job as the picker's free-CPU
// function. It lives in the call's scratch and the function is made once
// per scratch, so that a selection does not allocate a closure.
type cpusLeftFunc struct {
	v    View
	job  *Job
	fn   func(int) int
	home *scratch // the scratch fn was made in (fn is bound to its field)
}

func (f *cpusLeftFunc) at(i int) int { return cpusLeft(f.v, f.job, i) }

// cpusLeftOf returns cpusLeft for v and job as a function valid until the
// scratch's next call.
func (sc *scratch) cpusLeftOf(v View, job *Job) func(int) int {
	f := &sc.cpusLeft
	if f.home != sc || f.fn == nil {
		f.fn, f.home = f.at, sc
	}
	f.v, f.job = v, job
	return f.fn
}
