package selectnodes

import (
	"fmt"
	"time"
)

// SetAllocationEnd moves the expected end of a running allocation (a time
// limit changed, or a suspended job resumed), which WillRun and planners
// go by. Nothing else about the allocation changes.
func (c *Cluster) SetAllocationEnd(job JobID, end time.Time) error {
	c.mustBeMade("SetAllocationEnd")
	r, ok := c.jobs[job]
	if !ok {
		return fmt.Errorf("selectnodes: job %d is not allocated", job)
	}
	// records are values: snapshots keep their own copy of the old one
	c.changes.bump()
	r.end = end
	c.addJob(r)
	return nil
}
