package httpapi

import (
	"net/http"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// AllocView is an allocation as the API shows it: with its project's
// account and gid and its balance.
type AllocView struct {
	allocation.Allocation
	Account string `json:"account"`
	GID     uint32 `json:"gid"`
	Credits int64  `json:"credits"`
	Debited int64  `json:"debited"`
	Pending int64  `json:"pending"`
	Balance int64  `json:"balance"`
}

func (h *Handler) view(r *request, a allocation.Allocation, p allocation.Project) (AllocView, error) {
	b, err := h.ledger.Balance(r.Context(), a.ID)
	if err != nil {
		return AllocView{}, err
	}
	return AllocView{Allocation: a, Account: p.Account, GID: p.GID,
		Credits: b.Credits, Debited: b.Debited, Pending: b.Pending, Balance: b.Balance}, nil
}

// visibleProjects maps the projects the caller may see by id.
func (h *Handler) visibleProjects(r *request) (map[allocation.ProjectID]allocation.Project, error) {
	ps, err := h.ledger.Projects(r.Context())
	if err != nil {
		return nil, err
	}
	out := map[allocation.ProjectID]allocation.Project{}
	for _, p := range ps {
		if r.canSee(p) {
			out[p.ID] = p
		}
	}
	return out, nil
}

func (h *Handler) listAllocs(r *request) (int, any, error) {
	gid, byGID, err := queryUint(r, "gid", 32)
	if err != nil {
		return 0, nil, err
	}
	pid, byProject, err := queryUint(r, "project_id", 63)
	if err != nil {
		return 0, nil, err
	}
	active, byActive, err := queryBool(r, "active")
	if err != nil {
		return 0, nil, err
	}
	account := r.URL.Query().Get("account")
	projects, err := h.visibleProjects(r)
	if err != nil {
		return 0, nil, err
	}
	as, err := h.ledger.Allocations(r.Context())
	if err != nil {
		return 0, nil, err
	}
	now := h.now()
	as = slices.DeleteFunc(as, func(a allocation.Allocation) bool {
		p, ok := projects[a.Project]
		return !ok || (byGID && p.GID != uint32(gid)) || (byProject && a.Project != allocation.ProjectID(pid)) ||
			(account != "" && p.Account != account) || (byActive && a.Active(now) != active)
	})
	if as, err = page(r, as, func(a allocation.Allocation) allocation.AllocationID { return a.ID }); err != nil {
		return 0, nil, err
	}
	out := []AllocView{}
	for _, a := range as {
		p := projects[a.Project]
		v, err := h.view(r, a, p)
		if err != nil {
			return 0, nil, err
		}
		out = append(out, v)
	}
	return http.StatusOK, out, nil
}

// alloc reads the {id} allocation and its project, refusing callers
// outside it.
func (h *Handler) alloc(r *request) (allocation.Allocation, allocation.Project, error) {
	id, err := pathID(r)
	if err != nil {
		return allocation.Allocation{}, allocation.Project{}, err
	}
	a, err := h.ledger.Allocation(r.Context(), allocation.AllocationID(id))
	if err != nil {
		return a, allocation.Project{}, err
	}
	p, err := h.ledger.Project(r.Context(), a.Project)
	if err != nil {
		return a, p, err
	}
	if !r.canSee(p) {
		return a, p, hidden("allocation", id)
	}
	return a, p, nil
}

func (h *Handler) getAlloc(r *request) (int, any, error) {
	a, p, err := h.alloc(r)
	if err != nil {
		return 0, nil, err
	}
	v, err := h.view(r, a, p)
	return http.StatusOK, v, err
}

func (h *Handler) activity(r *request) (int, any, error) {
	a, _, err := h.alloc(r)
	if err != nil {
		return 0, nil, err
	}
	hist, err := h.ledger.History(r.Context(), a.ID)
	if err != nil {
		return 0, nil, err
	}
	hist, err = page(r, hist, func(a allocation.Activity) allocation.ActivityID { return a.ID })
	return http.StatusOK, hist, err
}

func (h *Handler) debits(r *request) (int, any, error) {
	a, _, err := h.alloc(r)
	if err != nil {
		return 0, nil, err
	}
	ds, err := h.ledger.Debits(r.Context(), a.ID)
	if err != nil {
		return 0, nil, err
	}
	ds, err = page(r, ds, func(d allocation.OwnerDebit) int64 { return int64(d.UID) })
	return http.StatusOK, ds, err
}

// allocBody is an allocation as clients write it.
type allocBody struct {
	ProjectID int64  `json:"project_id"`
	Category  string `json:"category"`
	Resource  string `json:"resource"`
	Start     string `json:"start"` // RFC 3339
	End       string `json:"end"`
}

func (b allocBody) allocation() (allocation.Allocation, error) {
	res, err := allocation.ParseResource(b.Resource)
	if err != nil {
		return allocation.Allocation{}, err
	}
	start, err := time.Parse(time.RFC3339, b.Start)
	if err != nil {
		return allocation.Allocation{}, fieldErr("start", "%q is not an RFC 3339 time", b.Start)
	}
	end, err := time.Parse(time.RFC3339, b.End)
	if err != nil {
		return allocation.Allocation{}, fieldErr("end", "%q is not an RFC 3339 time", b.End)
	}
	return allocation.Allocation{Project: allocation.ProjectID(b.ProjectID), Category: b.Category, Resource: res, Start: start, End: end}, nil
}

// decodeAlloc reads a superuser's allocation body.
func decodeAlloc(r *request) (allocation.Allocation, error) {
	if err := superuser(r); err != nil {
		return allocation.Allocation{}, err
	}
	var b allocBody
	if err := decode(r, &b); err != nil {
		return allocation.Allocation{}, err
	}
	return b.allocation()
}

func (h *Handler) createAlloc(r *request) (int, any, error) {
	a, err := decodeAlloc(r)
	if err != nil {
		return 0, nil, err
	}
	a, err = h.ledger.CreateAllocation(r.Context(), a)
	return http.StatusCreated, a, err
}

func (h *Handler) updateAlloc(r *request) (int, any, error) {
	a, err := decodeAlloc(r)
	if err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	a.ID = allocation.AllocationID(id)
	a, err = h.ledger.UpdateAllocation(r.Context(), a)
	return http.StatusOK, a, err
}

func (h *Handler) deleteAlloc(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, h.ledger.DeleteAllocation(r.Context(), allocation.AllocationID(id))
}

type creditBody struct {
	Amount  int64  `json:"amount"`
	Comment string `json:"comment"`
}

func (h *Handler) credit(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	var b creditBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	act, err := h.ledger.Credit(r.Context(), allocation.AllocationID(id), b.Amount, b.Comment, h.now())
	return http.StatusCreated, act, err
}
