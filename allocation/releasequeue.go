package allocation

import (
	"bytes"
	"cmp"
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
// scheduling pass). Safe for concurrent use; one ReleaseQueue per file:
// a queue whose file another writer replaced since it last read or wrote
// it refuses to write (ErrConflict) rather than lose that writer's
// releases. Make one with OpenReleaseQueue (the zero ReleaseQueue has no
// file: Add and Retry refuse with ErrInvalid). The file is one "LENGTH CRC
// JSON" line, as a journal record, so a file cut short or changed is
// refused (ErrFile) rather than retried with other values.
type ReleaseQueue struct {
	mu      sync.Mutex
	path    string
	pending []PendingRelease
	// seen is the file as this queue last read or wrote it (nil: absent),
	// to notice another writer.
	seen os.FileInfo
	// limit is the largest file the queue writes (0: MaxReleaseQueueFile).
	limit int64
}

// MaxReleaseQueueFile bounds the queue file (checked before reading).
const MaxReleaseQueueFile = 64 << 20

// OpenReleaseQueue reads the queue kept at path (empty when absent).
func OpenReleaseQueue(path string) (*ReleaseQueue, error) {
	if path == "" {
		return nil, invalidf("path", "the release queue needs a file")
	}
	q := &ReleaseQueue{path: path}
	seen, err := os.Stat(path)
	if err == nil {
		q.seen = seen
	}
	data, err := readLimitedTo(path, MaxReleaseQueueFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		q.seen = nil
		return q, nil
	case err != nil:
		return nil, fmt.Errorf("%w: release queue: %v", ErrFile, err)
	}
	if q.pending, err = decodeReleases(data); err != nil {
		return nil, fmt.Errorf("%w: release queue %s: %v", ErrFile, path, err)
	}
	return q, nil
}

// decodeReleases reads a queue file: one "LENGTH CRC JSON" line, or the
// bare JSON array earlier versions wrote.
func decodeReleases(data []byte) ([]PendingRelease, error) {
	body := data
	if len(bytes.TrimSpace(data)) > 0 && bytes.TrimSpace(data)[0] != '[' {
		line, ok := bytes.CutSuffix(data, []byte("\n"))
		if !ok || bytes.IndexByte(line, '\n') >= 0 {
			return nil, fmt.Errorf("not one \"LENGTH CRC JSON\" line ending in a newline (%d bytes): the file was cut short or changed", len(data))
		}
		var err error
		if body, err = checkLine(line); err != nil {
			return nil, err
		}
	}
	var ps []PendingRelease
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ps); err != nil {
		at := dec.InputOffset()
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			at = syn.Offset
		}
		return nil, fmt.Errorf("at byte %d of the JSON: %v", at, err)
	}
	for i := range ps {
		ps[i] = ps[i].clone()
	}
	return ps, nil
}

// clone is p with an Amount of its own, so the queue and its callers
// never share one.
func (p PendingRelease) clone() PendingRelease {
	if a := p.Completion.Amount; a != nil {
		v := *a
		p.Completion.Amount = &v
	}
	return p
}

func cloneReleases(ps []PendingRelease) []PendingRelease {
	out := make([]PendingRelease, len(ps))
	for i, p := range ps {
		out[i] = p.clone()
	}
	return out
}

// Pending is a copy of the queued releases, oldest first; it is the
// caller's (Amounts included).
func (q *ReleaseQueue) Pending() []PendingRelease {
	q.mu.Lock()
	defer q.mu.Unlock()
	return cloneReleases(q.pending)
}

// Add queues a copy of p and writes the queue to its file before
// returning. A completion no store would accept (no job id, an unknown
// outcome, a negative elapsed time or amount) is refused (ErrInvalid), and
// so is a release that would take the file past MaxReleaseQueueFile
// (ErrFile): a file OpenReleaseQueue refuses would lose every release in
// it at the next restart.
func (q *ReleaseQueue) Add(p PendingRelease) error {
	if err := p.Completion.validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	next := append(cloneReleases(q.pending), p.clone())
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
	if s == nil {
		return 0, nil, invalidf("store", "ReleaseQueue.Retry needs a Store")
	}
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
			failed = append(failed, p.clone())
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
	if q.path == "" {
		return invalidf("path", "the zero ReleaseQueue has no file: use OpenReleaseQueue")
	}
	if err := q.checkUnchanged(); err != nil {
		return err
	}
	body, err := json.Marshal(ps)
	if err != nil {
		return fmt.Errorf("%w: release queue: %v", ErrInvalid, err)
	}
	data := encodeLine(body)
	if limit := cmp.Or(q.limit, MaxReleaseQueueFile); int64(len(data)) > limit {
		return fmt.Errorf("%w: release queue %s would be %d bytes, more than the %d OpenReleaseQueue reads: not written (retry the queue first)", ErrFile, q.path, len(data), limit)
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
	if q.seen, err = os.Stat(q.path); err != nil {
		return fmt.Errorf("allocation: release queue: %w", err)
	}
	return syncDir(dir)
}

// checkUnchanged refuses to write over a file another writer replaced
// (or made, or removed) since this queue last read or wrote it: each
// write is a new file renamed into place, so another writer's shows as
// another file, size or time.
func (q *ReleaseQueue) checkUnchanged() error {
	now, err := os.Stat(q.path)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("allocation: release queue: %w", err)
	case err != nil && q.seen == nil:
		return nil
	case err == nil && q.seen != nil && os.SameFile(now, q.seen) && now.Size() == q.seen.Size() && now.ModTime().Equal(q.seen.ModTime()):
		return nil
	}
	return fmt.Errorf("%w: release queue %s was changed by another writer since this queue read it: open it again", ErrConflict, q.path)
}

// validate refuses a completion no store would accept, whatever job it
// names.
func (c Completion) validate() error {
	switch {
	case c.Job == 0:
		return invalidf("job_id", "missing")
	case c.Job > MaxJobID:
		return invalidf("job_id", "%d exceeds %d, the largest job id a ledger accepts", c.Job, MaxJobID)
	case c.Elapsed < 0:
		return invalidf("elapsed", "%s is negative", c.Elapsed)
	case c.Amount != nil && *c.Amount < 0:
		return invalidf("amount", "%d is negative", *c.Amount)
	}
	_, err := ParseOutcome(string(c.Outcome))
	return err
}
