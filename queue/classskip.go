package queue

import (
	"strconv"
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

// renderClass renders the class of j (never empty): its partition and
// every field of its request but the withheld nodes (not the job's), each
// written by strconv, strings quoted so that no value can run into the
// next. (Formatting the request with fmt's %+v made fmt call String on
// its nil pointer fields, a recovered panic each.) A test changes every
// field in turn and wants another key, so a field added to Request must
// be added here.
func renderClass(j *job) string {
	r := &j.Request
	b := make([]byte, 0, 128)
	b = strconv.AppendQuote(b, j.Partition)
	if r.Features != nil {
		b = strconv.AppendQuote(append(b, "|f"...), r.Features.String())
	}
	b = strconv.AppendQuote(append(b, '|'), r.Partition)
	for _, v := range [...]int64{int64(r.MinNodes), int64(r.MaxNodes), int64(r.DesiredNodes), int64(r.CPUs),
		int64(r.MinCPUsPerNode), r.MinMemoryPerNode, r.MinTmpDiskPerNode, r.MemPerCPU, int64(r.MaxCPUsPerSocket),
		int64(r.MaxSwitches), int64(r.Share), int64(r.TimeLimit)} {
		b = strconv.AppendInt(append(b, '|'), v, 10)
	}
	for _, v := range [...]bool{r.WholeMemory, r.CoreTasks, r.Contiguous, r.Root, r.Held} {
		b = strconv.AppendBool(append(b, '|'), v)
	}
	b = appendQuoted(append(b, "|r"...), r.Required)
	b = appendQuoted(append(b, "|x"...), r.Excluded)
	for _, g := range r.GRES {
		b = strconv.AppendQuote(append(b, "|g"...), g.Name)
		b = strconv.AppendQuote(b, g.Type)
		b = strconv.AppendInt(append(b, ':'), g.Min, 10)
		b = strconv.AppendInt(append(b, '-'), g.Max, 10)
	}
	for _, v := range [...]string{r.User, r.Account, r.QOS} {
		b = strconv.AppendQuote(append(b, '|'), v)
	}
	b = appendQuoted(append(b, "|u"...), r.Groups)
	return string(b)
}

// appendQuoted appends each of list quoted, and the count.
func appendQuoted(b []byte, list []string) []byte {
	b = strconv.AppendInt(b, int64(len(list)), 10)
	for _, v := range list {
		b = strconv.AppendQuote(b, v)
	}
	return b
}
