package queue

// heldByPartition reports whether j's request breaks its partition's
// limits (a time limit above MaxTime, a node count outside MinNodes and
// MaxNodes, a partition that is not up): such a job can start nowhere
// until its request or the partition changes, so a pass neither counts it
// against BackfillDepth nor makes it the head, whose reservation would
// hold every job behind it back for a start that never comes. Its reason
// says which limit holds it, as Schedule's does.
// m is j's partition (Scheduler.partOf); the caller asks only when
// m.limited: most partitions limit nothing, and a pass's walk asks for
// every job it cannot start.
func (e *EASY) heldByPartition(j *job, m *partMemo) bool {
	if !m.heldByLimits(j) {
		return false
	}
	j.Reason = e.s.partitionReason(j)
	return true
}
