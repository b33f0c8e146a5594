package pgstore

import (
	"context"
	"fmt"

	"github.com/hpcsched/hpcsched/queue"
)

// JobIDs hands out job IDs from the database's sequence hpcsched_job_ids,
// so several schedulers — a federation's members, or controllers in
// several processes — share one ID space (the grid-scheduling slides' grid-unique IDs). A
// sequence never returns a value twice, even across crashes; values a
// failed submission drew are skipped, as Slurm's job IDs may be.
type JobIDs struct{ s *Store }

var _ queue.IDSource = (*JobIDs)(nil)

// JobIDs is the store's job-ID source.
func (s *Store) JobIDs() *JobIDs { return &JobIDs{s} }

// NextJobID implements queue.IDSource.
func (j *JobIDs) NextJobID(ctx context.Context) (queue.JobID, error) {
	if err := j.s.opened(ctx); err != nil {
		return 0, err
	}
	var id int64
	if err := j.s.pool.QueryRow(ctx, "SELECT nextval('hpcsched_job_ids')").Scan(&id); err != nil {
		return 0, fmt.Errorf("pgstore: next job ID: %w", err)
	}
	if id <= 0 {
		return 0, fmt.Errorf("pgstore: next job ID: sequence gave %d", id)
	}
	return queue.JobID(id), nil
}
