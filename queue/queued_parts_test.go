package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The queued jobs counted by partition are the queue's, after random
// submissions, updates that move a job to another partition, holds,
// cancellations, starts, requeues and ends.
func TestQueuedByPartitionCountsTheQueue(t *testing.T) {
	r := seeded(t, 41)
	moved := 0
	for round := range twinIterations(20, 4, 2) {
		conf, parts := partsConf(r)
		s := New(cluster(t, conf))
		from := r.IntN(50) // counted from this step on (queuedCounts)
		c := s.Cluster()
		n, cpn := c.NodeCount(), c.MostNodeCPUs()
		now := t0
		for step := range 150 {
			now = now.Add(time.Duration(r.IntN(3)) * time.Minute)
			jobs := s.Jobs()
			var id JobID
			if len(jobs) > 0 {
				id = jobs[r.IntN(len(jobs))].ID
			}
			switch r.IntN(8) {
			case 0, 1, 2:
				spec := randomSpec(r, n, cpn, now)
				spec.Request.Partition = parts[r.IntN(len(parts))]
				_, _ = s.Submit(spec, now)
			case 3:
				if s.Update(id, Update{Partition: parts[1+r.IntN(len(parts)-1)]}, now) == nil {
					moved++
				}
			case 4:
				_ = s.Cancel(id, now)
			case 5:
				_ = s.Requeue(id, now)
			case 6:
				_ = s.Finish(id, Outcome{Kind: Completed}, now)
			case 7:
				s.Schedule(now)
			}
			if step < from {
				require.False(t, s.queuedIn.on)
				continue
			}
			s.queuedCounts()
			want := map[string]int{}
			s.queue.Ascend(func(j *job) bool { want[j.Partition]++; return true })
			for _, p := range c.Partitions() {
				require.Equal(t, want[p.Name], s.queuedIn.count(p.Name), "round %d step %d (%q): partition %s", round, step, conf, p.Name)
			}
			total := 0
			for _, k := range s.queuedIn.n {
				total += k
			}
			require.Equal(t, s.queue.Len(), total, fmt.Sprintf("round %d step %d", round, step))
		}
	}
	require.Positive(t, moved, "no update moved a job")
}
