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
type classFailures map[string]error

func (f classFailures) lookup(j *job, locks int) (error, bool) {
	if len(f) == 0 {
		return nil, false // nothing failed yet: no key to build
	}
	err, ok := f[jobClass(j, locks)]
	return err, ok
}

func (f classFailures) add(j *job, locks int, err error) { f[jobClass(j, locks)] = err }

// jobClass renders the class of j as a key.
func jobClass(j *job, locks int) string {
	req := j.Request
	expr := ""
	if req.Features != nil {
		expr = req.Features.String()
	}
	req.Features, req.ExcludeNodes = nil, nil // pointers: rendered by value above, or not the job's
	return fmt.Sprintf("%d|%s|%s|%+v", locks, j.Partition, expr, req)
}
