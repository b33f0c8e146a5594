package httpapi

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// projectsByAlloc maps each allocation to its project's record when the
// caller may see that project.
func (h *Handler) projectsByAlloc(r *request) (map[allocation.AllocationID]bool, []allocation.Allocation, error) {
	projects, err := h.visibleProjects(r)
	if err != nil {
		return nil, nil, err
	}
	as, err := h.ledger.Allocations(r.Context())
	if err != nil {
		return nil, nil, err
	}
	seen := map[allocation.AllocationID]bool{}
	for _, a := range as {
		_, seen[a.ID] = projects[a.Project]
	}
	return seen, as, nil
}

// mayRead: admins and superusers read all; others their projects' and
// their own jobs.
func (r *request) mayRead(visible map[allocation.AllocationID]bool, alloc allocation.AllocationID, uid uint32) bool {
	return r.id.Role >= Admin || visible[alloc] || uid == r.id.UID
}

// ownerFilter is the uid= and alloc= query parameters of /job and
// /failure.
type ownerFilter struct {
	uid, alloc     uint64
	byUID, byAlloc bool
}

func parseOwnerFilter(r *request) (f ownerFilter, err error) {
	if f.uid, f.byUID, err = queryUint(r, "uid", 32); err != nil {
		return f, err
	}
	f.alloc, f.byAlloc, err = queryUint(r, "alloc", 63)
	return f, err
}

func (f ownerFilter) match(uid uint32, alloc allocation.AllocationID) bool {
	return (!f.byUID || uid == uint32(f.uid)) && (!f.byAlloc || alloc == allocation.AllocationID(f.alloc))
}

func (h *Handler) listJobs(r *request) (int, any, error) {
	filter, err := parseOwnerFilter(r)
	if err != nil {
		return 0, nil, err
	}
	status := allocation.JobStatus(r.URL.Query().Get("status"))
	if status != "" && status != allocation.Executing && status != allocation.Completed {
		return 0, nil, fieldErr("status", "%q is not executing or completed", status)
	}
	visible, as, err := h.projectsByAlloc(r)
	if err != nil {
		return 0, nil, err
	}
	out := []allocation.Job{}
	for _, a := range as {
		if filter.byAlloc && a.ID != allocation.AllocationID(filter.alloc) {
			continue
		}
		js, err := h.ledger.Jobs(r.Context(), a.ID)
		if err != nil {
			return 0, nil, err
		}
		for _, j := range js {
			if r.mayRead(visible, j.Allocation, j.UID) && filter.match(j.UID, j.Allocation) && (status == "" || j.Status == status) {
				out = append(out, j)
			}
		}
	}
	out, err = page(r, out, func(j allocation.Job) allocation.JobID { return j.ID })
	return http.StatusOK, out, err
}

func (h *Handler) getJob(r *request) (int, any, error) {
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	j, err := h.ledger.Job(r.Context(), allocation.JobID(id))
	if err != nil {
		return 0, nil, err
	}
	visible, _, err := h.projectsByAlloc(r)
	if err != nil {
		return 0, nil, err
	}
	if !r.mayRead(visible, j.Allocation, j.UID) {
		return 0, nil, hidden("job", id)
	}
	return http.StatusOK, j, nil
}

// preDebitBody is POST /job. Units, the billable cores or GPUs (a MAX_TRES
// billing may be fractional), lets the completion compute the actual debit
// from the elapsed time.
type preDebitBody struct {
	JobID    uint64   `json:"job_id"`
	UID      uint32   `json:"uid"`
	Account  string   `json:"account"`
	Resource string   `json:"resource"`
	Amount   *int64   `json:"amount"`
	Units    *float64 `json:"units"`
	Comment  string   `json:"comment"`
}

func (b preDebitBody) request() (allocation.PreDebitRequest, error) {
	if b.Amount == nil {
		return allocation.PreDebitRequest{}, fieldErr("amount", "missing")
	}
	res, err := allocation.ParseResource(b.Resource)
	if err != nil {
		return allocation.PreDebitRequest{}, err
	}
	var rate int64
	if b.Units != nil {
		u := *b.Units
		// The bound is checked on the rounded millionths: 2^63 itself is
		// a float64, and converting it to int64 gives a negative rate.
		millionths := math.Round(u * 1e6)
		if u < 0 || math.IsNaN(u) || millionths >= math.MaxInt64 {
			return allocation.PreDebitRequest{}, fieldErr("units", "%v is not a non-negative number of cores or GPUs", u)
		}
		if u > 0 && millionths == 0 {
			// A rate of 0 means "no units given": the completion would
			// then need an amount the caller meant to leave out.
			return allocation.PreDebitRequest{}, fieldErr("units", "%v rounds to 0 millionths of a core or GPU", u)
		}
		rate = int64(millionths)
	}
	return allocation.PreDebitRequest{Job: allocation.JobID(b.JobID), UID: b.UID, Account: b.Account,
		Resource: res, Amount: *b.Amount, Rate: rate, Comment: b.Comment}, nil
}

func (h *Handler) preDebit(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	var b preDebitBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	req, err := b.request()
	if err != nil {
		return 0, nil, err
	}
	j, err := h.ledger.PreDebit(r.Context(), req, h.now())
	return http.StatusCreated, j, err
}

// completionBody is PUT /job/{id}.
type completionBody struct {
	Elapsed *int64 `json:"elapsed"` // seconds
	Outcome string `json:"outcome"`
	Amount  *int64 `json:"amount"`
}

func (h *Handler) complete(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	var b completionBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if b.Elapsed == nil {
		return 0, nil, fieldErr("elapsed", "missing")
	}
	if *b.Elapsed < 0 || *b.Elapsed > math.MaxInt64/int64(time.Second) {
		return 0, nil, fieldErr("elapsed", "%d seconds is out of range", *b.Elapsed)
	}
	outcome, err := allocation.ParseOutcome(b.Outcome)
	if err != nil {
		return 0, nil, err
	}
	j, err := h.ledger.Complete(r.Context(), allocation.Completion{Job: allocation.JobID(id),
		Elapsed: time.Duration(*b.Elapsed) * time.Second, Outcome: outcome, Amount: b.Amount}, h.now())
	return http.StatusOK, j, err
}

func (h *Handler) failures(r *request) ([]allocation.Failure, error) {
	visible, _, err := h.projectsByAlloc(r)
	if err != nil {
		return nil, err
	}
	fs, err := h.ledger.Failures(r.Context())
	if err != nil {
		return nil, err
	}
	out := []allocation.Failure{}
	for _, f := range fs {
		if r.mayRead(visible, f.Allocation, f.UID) {
			out = append(out, f)
		}
	}
	return out, nil
}

func (h *Handler) listFailures(r *request) (int, any, error) {
	filter, err := parseOwnerFilter(r)
	if err != nil {
		return 0, nil, err
	}
	fs, err := h.failures(r)
	if err != nil {
		return 0, nil, err
	}
	out := fs[:0]
	for _, f := range fs {
		if filter.match(f.UID, f.Allocation) {
			out = append(out, f)
		}
	}
	// by job (a job's refusals in attempt order: the sort is stable)
	out, err = page(r, out, func(f allocation.Failure) allocation.JobID { return f.Job })
	return http.StatusOK, out, err
}

func (h *Handler) getFailure(r *request) (int, any, error) {
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	fs, err := h.ledger.Failures(r.Context())
	if err != nil {
		return 0, nil, err
	}
	visible, _, err := h.projectsByAlloc(r)
	if err != nil {
		return 0, nil, err
	}
	// The job's latest refusal (Failures lists them by job and attempt).
	for _, f := range slices.Backward(fs) {
		if f.Job == allocation.JobID(id) {
			if !r.mayRead(visible, f.Allocation, f.UID) {
				break
			}
			return http.StatusOK, f, nil
		}
	}
	return 0, nil, fmt.Errorf("%w: no failure for job %d", allocation.ErrNotFound, id)
}

// cancelJob is DELETE /job/{id}: the pre-debit of a job that never
// started is returned in full (204). A completed job keeps its debit: 409.
func (h *Handler) cancelJob(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	j, err := h.ledger.Job(r.Context(), allocation.JobID(id))
	if err != nil {
		return 0, nil, err
	}
	if j.Status != allocation.Executing {
		return 0, nil, fmt.Errorf("%w: job %d is %s; its debit stands", allocation.ErrConflict, id, j.Status)
	}
	return http.StatusNoContent, nil, h.ledger.Forget(r.Context(), allocation.JobID(id), h.now())
}
