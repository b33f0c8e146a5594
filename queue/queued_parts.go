package queue

// partCounts counts the queued jobs of each partition, by name, for an
// EASY walk past the depth: a partition with no job left to walk needs
// no lock to end the walk. A replay's jobs name one partition or a few,
// so the names are a short list, and the one counted last is tried first.
// The counts are kept from the first time they are read (queuedCounts)
// on: a scheduler of one partition never walks past the depth with a
// partition not locked, and its queue goes uncounted.
type partCounts struct {
	on    bool
	names []string
	n     []int
	last  int
}

// queuedCounts is the queue's jobs counted by partition, counted now if
// they were not kept yet, and kept from now on.
func (s *Scheduler) queuedCounts() *partCounts {
	if q := &s.queuedIn; !q.on {
		q.on = true
		s.queue.Ascend(func(j *job) bool {
			q.add(j.Partition, 1)
			return true
		})
	}
	return &s.queuedIn
}

// add adds d to partition name's count.
func (q *partCounts) add(name string, d int) {
	if k := q.last; k < len(q.names) && q.names[k] == name {
		q.n[k] += d
		return
	}
	q.addSlow(name, d)
}

func (q *partCounts) addSlow(name string, d int) {
	for k := range q.names {
		if q.names[k] == name {
			q.n[k] += d
			q.last = k
			return
		}
	}
	q.names, q.n, q.last = append(q.names, name), append(q.n, d), len(q.names)
}

// count is the number of queued jobs of partition name.
func (q *partCounts) count(name string) int {
	for k := range q.names {
		if q.names[k] == name {
			return q.n[k]
		}
	}
	return 0
}
