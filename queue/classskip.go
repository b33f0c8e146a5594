package queue

import (
	"fmt"
)

// classFailures remembers, for one Schedule pass, the job classes whose
// selection failed for a reason the load cannot change (a partition limit,
// nodes down or drained, a configuration that never fits), so later jobs
// of the same class take the same failure without a selection, as Slurm's
// queue skips jobs like one that already failed. A busy failure needs no
// entry: it locks the partition. The class is everything the selection
// reads from a job: its partition and its whole request (nodes, CPUs,
// memory, features, required and excluded nodes, sharing, time limit, GRES,
// root, held), and the nodes withheld so far, which change only when a
// partition locks (so the count of locked partitions stands for them). It
// is rebuilt every pass and never saved, so a restored scheduler decides
// alike.
type classFailures map[classKey]error

// classKey is a class under a count of locked partitions.
type classKey struct {
	locks int
	class string
}

func (f classFailures) lookup(j *job, locks int) (error, bool) {
	if len(f) == 0 {
		return nil, false // nothing failed yet: no key to build
	}
	err, ok := f[classKey{locks, j.classOf()}]
	return err, ok
}

func (f classFailures) add(j *job, locks int, err error) { f[classKey{locks, j.classOf()}] = err }

// classOf is the class of j rendered as a key, kept in the job until an
// update changes its request or partition (updated clears it): a pending
// job is looked up in every pass after a failure, and rendering the whole
// request each time was a tenth of a replay whose passes met failures.
func (j *job) classOf() string {
	if j.class == "" {
		j.class = renderClass(j)
	}
	return j.class
}

// renderClass renders the class of j (never empty).
func renderClass(j *job) string {
	req := j.Request
	expr := ""
	if req.Features != nil {
		expr = req.Features.String()
	}
	req.Features, req.ExcludeNodes = nil, nil // pointers: rendered by value above, or not the job's
	return fmt.Sprintf("%s|%s|%+v", j.Partition, expr, req)
}
