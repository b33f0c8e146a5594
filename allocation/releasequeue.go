package allocation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// PendingRelease is a job end the ledger could not record when it
// happened (the epilog's completion, or a requeued job's forget), kept
// to be retried. Now is the time of the end, so a retry records it as it
// would have been.
type PendingRelease struct {
	Completion Completion `json:"completion"`
	// Forget: after the completion, drop the job's record (a requeued
	// job runs again under its id).
	Forget    bool      `json:"forget,omitempty"`
	Now       time.Time `json:"now"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error,omitempty"`
}

// ReleaseQueue is the HADM paper's asynchronous epilog path made durable: job
// ends that failed to reach the ledger (a database down, a network
// error) are kept in a file, fsynced before Add returns, and retried by
// Retry — after a restart too, since OpenReleaseQueue reads the file
// back. Nothing here runs by itself: the caller calls Retry (say, once a
// scheduling pass). Safe for concurrent use; one process per file.
type ReleaseQueue struct {
	mu      sync.Mutex
	path    string
	pending []PendingRelease
}

// MaxReleaseQueueFile bounds the queue file (checked before reading).
const MaxReleaseQueueFile = 64 << 20

// OpenReleaseQueue reads the queue kept at path (empty when absent).
func OpenReleaseQueue(path string) (*ReleaseQueue, error) {
	q := &ReleaseQueue{path: path}
	data, err := readLimitedTo(path, MaxReleaseQueueFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return q, nil
	case err != nil:
		return nil, fmt.Errorf("%w: release queue: %v", ErrFile, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q.pending); err != nil {
		return nil, fmt.Errorf("%w: release queue %s: %v", ErrFile, path, err)
	}
	return q, nil
}

// Pending is a copy of the queued releases, oldest first.
func (q *ReleaseQueue) Pending() []PendingRelease {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]PendingRelease(nil), q.pending...)
}

// Add queues p and writes the queue to its file before returning.
func (q *ReleaseQueue) Add(p PendingRelease) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	next := append(append([]PendingRelease(nil), q.pending...), p)
	if err := q.save(next); err != nil {
		return err
	}
	q.pending = next
	return nil
}

// Retry records each queued release in the ledger, oldest first, and
// drops those recorded. A release the ledger refuses for good (its job
// unknown, or completed with other values: ErrNotFound, ErrConflict,
// ErrInvalid) is dropped too and returned in failed; others stay queued
// with their error. It returns how many were recorded.
func (q *ReleaseQueue) Retry(ctx context.Context, s Store) (done int, failed []PendingRelease, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var keep []PendingRelease
	for _, p := range q.pending {
		rerr := p.apply(ctx, s)
		switch {
		case rerr == nil:
			done++
		case errors.Is(rerr, ErrNotFound), errors.Is(rerr, ErrConflict), errors.Is(rerr, ErrInvalid):
			p.LastError = rerr.Error()
			failed = append(failed, p)
		default:
			p.Attempts++
			p.LastError = rerr.Error()
			keep = append(keep, p)
		}
	}
	if err := q.save(keep); err != nil {
		return 0, nil, err
	}
	q.pending = keep
	return done, failed, nil
}

func (p PendingRelease) apply(ctx context.Context, s Store) error {
	if _, err := s.Complete(ctx, p.Completion, p.Now); err != nil {
		return err
	}
	if p.Forget {
		return s.Forget(ctx, p.Completion.Job, p.Now)
	}
	return nil
}

// save writes ps to the file atomically (temporary file, fsync, rename,
// fsync of the directory).
func (q *ReleaseQueue) save(ps []PendingRelease) error {
	if ps == nil {
		ps = []PendingRelease{}
	}
	data, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	dir := filepath.Dir(q.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(q.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("allocation: release queue: %w", err)
	}
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), q.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("allocation: release queue: %w", err)
	}
	return syncDir(dir)
}
