package selectnodes

import (
	"errors"

	"github.com/bits-and-blooms/bitset"
)

// Slurm 22.05.8 leaves a job pending with the reason PartitionConfig, not
// refused at submission, when it asks for more nodes or CPUs than its
// partition has in all (blind b_topo3_*.conf -N19 on 18 nodes,
// b_ct.conf -n400 on 288 CPUs). A request the partition's nodes could
// hold in number but not in shape (a counted constraint, a node limit
// too small for the CPUs, memory no node has) is refused at submission:
// "Requested node configuration is not available" (node_config). A job
// whose nodes would span more leaf switches than --switches allows waits
// (PENDING Resources: blind/recorded.tsv:19, --switches=1 -N6 where no
// leaf holds 6), and so does one asking more memory per node than
// MaxMemPerNode (PENDING MaxMemPerLimit: blind/recorded.tsv:138). No
// Slurm code was used.

// ErrAboveTotals is the cause (errors.Is) of a compat-mode ErrPartConfig
// for a request above its partition's node or CPU totals. A job listing
// several partitions that is above every one's is refused at submission
// instead (node_config: blind10/recorded.tsv:66, -p low,gen -n220), which
// only the caller trying the partitions can tell (check.Site.AskOptions).
var ErrAboveTotals = errors.New("above the partition's node or CPU totals")

// compatPending is the compat mode's class for a job nothing placed,
// where it is not the default's: PartitionConfig for a request above its
// partition's totals, busy for one only the switch limit keeps out; nil
// otherwise, and always in the default mode (which names both
// node_config: no change of load lets them run as asked). empty is the
// cluster with no load, total the nodes that qualify.
func (c *Cluster) compatPending(empty View, job *Job, total *bitset.BitSet, n Counts) *Error {
	if !c.compat {
		return nil
	}
	if err := c.compatSwitchesWait(empty, job, total, n); err != nil {
		return err
	}
	nodes := c.parts[job.partIndex].nodes
	count, cpus := 0, 0
	var err *Error
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		count++
		cpus += c.idleUnits(job, int(i), c.effective(int(i)).CPUs) // partcap.go, tasklayout.go
	}
	switch {
	case max(n.Min, 1) > count:
		err = newError(ErrPartConfig, "%d nodes asked and partition %s has %d: Slurm 22.05 leaves the job pending (PartitionConfig)",
			max(n.Min, 1), job.Part.Name, count)
	case n.CPUs > cpus:
		err = newError(ErrPartConfig, "%d CPUs asked and partition %s has %d: Slurm 22.05 leaves the job pending (PartitionConfig)",
			n.CPUs, job.Part.Name, cpus)
	}
	if err != nil {
		err.Cause = ErrAboveTotals
	}
	return err
}

// compatSwitchesWait is the compat answer for a job the switch limit alone
// keeps from its nodes: it waits (busy), as Slurm's does for
// max_switch_wait; nil when the job does not fit without the limit either.
func (c *Cluster) compatSwitchesWait(empty View, job *Job, total *bitset.BitSet, n Counts) *Error {
	if job.Req.MaxSwitches <= 0 || c.topo == nil {
		return nil
	}
	req := *job.Req
	req.MaxSwitches = 0
	free := *job
	free.Req = &req
	if _, ok := c.selector.JobTest(empty, &free, total, n); !ok {
		return nil
	}
	return newError(ErrBusy, "no placement spans at most %d leaf switches: Slurm 22.05 keeps the job pending (Resources) "+
		"for its switch wait", job.Req.MaxSwitches)
}

// memLimitClass is the class of a request for more memory per node than
// the partition's MaxMemPerNode: Slurm 22.05 keeps it pending
// (MaxMemPerLimit), the default mode calls it invalid.
func (c *Cluster) memLimitClass() error {
	if c.compat {
		return ErrPartConfig
	}
	return ErrInvalidRequest
}
