package httpapi

import (
	"net/http"
	"strconv"

	"github.com/hpcsched/hpcsched/allocation"
)

// canSee reports whether the caller may read a project's records.
func (r *request) canSee(p allocation.Project) bool {
	return r.id.Role >= Admin || r.id.InGroup(p.GID)
}

// query parameter helpers: absent is ok=false; malformed names the
// parameter.
func queryUint(r *request, name string, bits int) (uint64, bool, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, false, fieldErr(name, "%q is not a non-negative integer", s)
	}
	return n, true, nil
}

func queryBool(r *request, name string) (bool, bool, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return false, false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, false, fieldErr(name, "%q is not true or false", s)
	}
	return b, true, nil
}

func (h *Handler) listProjects(r *request) (int, any, error) {
	gid, byGID, err := queryUint(r, "gid", 32)
	if err != nil {
		return 0, nil, err
	}
	account := r.URL.Query().Get("account")
	ps, err := h.ledger.Projects(r.Context())
	if err != nil {
		return 0, nil, err
	}
	out := []allocation.Project{}
	for _, p := range ps {
		if r.canSee(p) && (!byGID || p.GID == uint32(gid)) && (account == "" || p.Account == account) {
			out = append(out, p)
		}
	}
	out, err = page(r, out, func(p allocation.Project) allocation.ProjectID { return p.ID })
	return http.StatusOK, out, err
}

// project reads the {id} project, refusing callers outside it.
func (h *Handler) project(r *request) (allocation.Project, error) {
	id, err := pathID(r)
	if err != nil {
		return allocation.Project{}, err
	}
	p, err := h.ledger.Project(r.Context(), allocation.ProjectID(id))
	if err != nil {
		return allocation.Project{}, err
	}
	if !r.canSee(p) {
		return allocation.Project{}, hidden("project", id)
	}
	return p, nil
}

func (h *Handler) getProject(r *request) (int, any, error) {
	p, err := h.project(r)
	return http.StatusOK, p, err
}

func (h *Handler) createProject(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	var p allocation.Project
	if err := decode(r, &p); err != nil {
		return 0, nil, err
	}
	p.ID = 0
	p, err := h.ledger.CreateProject(r.Context(), p)
	return http.StatusCreated, p, err
}

func (h *Handler) updateProject(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	var p allocation.Project
	if err := decode(r, &p); err != nil {
		return 0, nil, err
	}
	if p.ID != 0 && p.ID != allocation.ProjectID(id) {
		return 0, nil, fieldErr("id", "%d differs from the path's %d", p.ID, id)
	}
	p.ID = allocation.ProjectID(id)
	p, err = h.ledger.UpdateProject(r.Context(), p)
	return http.StatusOK, p, err
}

func (h *Handler) deleteProject(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	id, err := pathID(r)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, h.ledger.DeleteProject(r.Context(), allocation.ProjectID(id))
}
