package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/jackc/pgx/v5"
)

// CreateProject adds a project; its ID is assigned and returned. An account another project has is refused (ErrConflict).
func (s *Store) CreateProject(ctx context.Context, p allocation.Project) (allocation.Project, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Project{}, err
	}
	p.Name, p.Account = strings.TrimSpace(p.Name), strings.TrimSpace(p.Account)
	if err := p.Validate(); err != nil {
		return allocation.Project{}, err
	}
	err := s.pool.QueryRow(ctx, "INSERT INTO projects (gname, gid, account) VALUES ($1, $2, $3) RETURNING project_id",
		p.Name, int64(p.GID), p.Account).Scan(&p.ID)
	if pgCode(err) == uniqueViolation {
		return allocation.Project{}, fmt.Errorf("%w: account %q belongs to another project", allocation.ErrConflict, p.Account)
	}
	return p, clean(err)
}

// UpdateProject replaces the project with p.ID (ErrNotFound when none); an account another project has is refused (ErrConflict).
func (s *Store) UpdateProject(ctx context.Context, p allocation.Project) (allocation.Project, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Project{}, err
	}
	p.Name, p.Account = strings.TrimSpace(p.Name), strings.TrimSpace(p.Account)
	if err := p.Validate(); err != nil {
		return allocation.Project{}, err
	}
	tag, err := s.pool.Exec(ctx, "UPDATE projects SET gname = $2, gid = $3, account = $4 WHERE project_id = $1",
		p.ID, p.Name, int64(p.GID), p.Account)
	switch {
	case pgCode(err) == uniqueViolation:
		return allocation.Project{}, fmt.Errorf("%w: account %q belongs to another project", allocation.ErrConflict, p.Account)
	case err != nil:
		return allocation.Project{}, clean(err)
	case tag.RowsAffected() == 0:
		return allocation.Project{}, fmt.Errorf("%w: project %d", allocation.ErrNotFound, p.ID)
	}
	return p, nil
}

// DeleteProject removes a project without allocations (ErrConflict otherwise, ErrNotFound when none).
func (s *Store) DeleteProject(ctx context.Context, id allocation.ProjectID) error {
	if err := s.opened(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM projects WHERE project_id = $1", id)
	switch {
	case pgCode(err) == foreignKeyViolation:
		return fmt.Errorf("%w: project %d has allocations", allocation.ErrConflict, id)
	case err != nil:
		return clean(err)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("%w: project %d", allocation.ErrNotFound, id)
	}
	return nil
}

const projectCols = "project_id, gname, gid, account"

func scanProject(row pgx.CollectableRow) (allocation.Project, error) {
	var p allocation.Project
	var gid int64
	err := row.Scan(&p.ID, &p.Name, &gid, &p.Account)
	p.GID = uint32(gid)
	return p, err
}

// Project is the project with this ID (ErrNotFound when none).
func (s *Store) Project(ctx context.Context, id allocation.ProjectID) (allocation.Project, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Project{}, err
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+projectCols+" FROM projects WHERE project_id = $1", id)
	p, err := pgx.CollectExactlyOneRow(rows, scanProject)
	return p, clean(notFound(err, "project", id))
}

// Projects lists every project by ID; the slice is the caller's.
func (s *Store) Projects(ctx context.Context) ([]allocation.Project, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+projectCols+" FROM projects ORDER BY project_id")
	return cleaned(pgx.CollectRows(rows, scanProject))
}

const allocCols = "allocation_id, project_id, category, resource, start_date, end_date"

func scanAlloc(row pgx.CollectableRow) (allocation.Allocation, error) {
	var a allocation.Allocation
	err := row.Scan(&a.ID, &a.Project, &a.Category, &a.Resource, &a.Start, &a.End)
	a.Start, a.End = utc(a.Start), utc(a.End)
	return a, err
}

// CreateAllocation adds an allocation (a.ID is ignored and assigned); an overlap with another of its project and resource is an *OverlapError.
func (s *Store) CreateAllocation(ctx context.Context, a allocation.Allocation) (allocation.Allocation, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Allocation{}, err
	}
	a.ID = 0
	return s.putAllocation(ctx, a)
}

// UpdateAllocation replaces the allocation with a.ID; its project and resource are fixed once it has activity (ErrConflict); overlaps are an *OverlapError.
func (s *Store) UpdateAllocation(ctx context.Context, a allocation.Allocation) (allocation.Allocation, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Allocation{}, err
	}
	if a.ID <= 0 {
		return allocation.Allocation{}, &allocation.FieldError{Field: "id", Reason: "missing"}
	}
	return s.putAllocation(ctx, a)
}

// putAllocation inserts or updates; the exclusion constraint refuses an
// overlap, which is then reported with the allocation it overlaps.
func (s *Store) putAllocation(ctx context.Context, a allocation.Allocation) (allocation.Allocation, error) {
	a.Category = strings.TrimSpace(a.Category)
	if err := a.Validate(); err != nil {
		return allocation.Allocation{}, err
	}
	a.Start, a.End = a.Start.UTC(), a.End.UTC()
	var err error
	if a.ID == 0 {
		err = s.pool.QueryRow(ctx, `INSERT INTO allocations (project_id, category, resource, start_date, end_date)
			VALUES ($1, $2, $3, $4, $5) RETURNING allocation_id`, a.Project, a.Category, string(a.Resource), a.Start, a.End).Scan(&a.ID)
	} else {
		err = s.updateAllocation(ctx, a)
	}
	switch pgCode(err) {
	case restrictViolation:
		return allocation.Allocation{}, fmt.Errorf("%w: allocation %d has activity; its project and resource are fixed", allocation.ErrConflict, a.ID)
	case exclusionViolation:
		rows, _ := s.pool.Query(ctx, "SELECT "+allocCols+` FROM allocations WHERE project_id = $1 AND resource = $2
			AND allocation_id <> $3 AND tstzrange(start_date, end_date) && tstzrange($4, $5) ORDER BY start_date LIMIT 1`,
			a.Project, string(a.Resource), a.ID, a.Start, a.End)
		other, qerr := pgx.CollectExactlyOneRow(rows, scanAlloc)
		if qerr != nil {
			return allocation.Allocation{}, fmt.Errorf("%w: a %s allocation of project %d overlaps this period", allocation.ErrOverlap, a.Resource, a.Project)
		}
		return allocation.Allocation{}, &allocation.OverlapError{New: a, Existing: other}
	case foreignKeyViolation:
		return allocation.Allocation{}, fmt.Errorf("%w: project %d", allocation.ErrNotFound, a.Project)
	}
	return a, clean(err)
}

func (s *Store) updateAllocation(ctx context.Context, a allocation.Allocation) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var project int64
		var resource string
		err := tx.QueryRow(ctx, "SELECT project_id, resource FROM allocations WHERE allocation_id = $1 FOR UPDATE", a.ID).Scan(&project, &resource)
		if err != nil {
			return notFound(err, "allocation", a.ID)
		}
		if allocation.ProjectID(project) != a.Project || allocation.Resource(resource) != a.Resource {
			var used bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM activity WHERE allocation_id = $1)", a.ID).Scan(&used); err != nil {
				return err
			}
			if used {
				return fmt.Errorf("%w: allocation %d has activity; its project and resource are fixed", allocation.ErrConflict, a.ID)
			}
		}
		_, err = tx.Exec(ctx, `UPDATE allocations SET project_id = $2, category = $3, resource = $4, start_date = $5, end_date = $6
			WHERE allocation_id = $1`, a.ID, a.Project, a.Category, string(a.Resource), a.Start, a.End)
		return err
	})
}

// DeleteAllocation removes an allocation without activity (ErrConflict otherwise, ErrNotFound when none).
func (s *Store) DeleteAllocation(ctx context.Context, id allocation.AllocationID) error {
	if err := s.opened(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM allocations WHERE allocation_id = $1", id)
	switch {
	case pgCode(err) == foreignKeyViolation, pgCode(err) == restrictViolation:
		return fmt.Errorf("%w: allocation %d has activity", allocation.ErrConflict, id)
	case err != nil:
		return clean(err)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("%w: allocation %d", allocation.ErrNotFound, id)
	}
	return nil
}

// Allocation is the allocation with this ID (ErrNotFound when none).
func (s *Store) Allocation(ctx context.Context, id allocation.AllocationID) (allocation.Allocation, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Allocation{}, err
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+allocCols+" FROM allocations WHERE allocation_id = $1", id)
	a, err := pgx.CollectExactlyOneRow(rows, scanAlloc)
	return a, clean(notFound(err, "allocation", id))
}

// Allocations lists every allocation by ID; the slice is the caller's.
func (s *Store) Allocations(ctx context.Context) ([]allocation.Allocation, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+allocCols+" FROM allocations ORDER BY allocation_id")
	return cleaned(pgx.CollectRows(rows, scanAlloc))
}

// ActiveAllocation is the allocation of the account's project and resource r whose period holds t (ErrNoAllocation when none).
func (s *Store) ActiveAllocation(ctx context.Context, account string, r allocation.Resource, t time.Time) (allocation.Allocation, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Allocation{}, err
	}
	return cleaned(activeAllocation(ctx, s.pool, account, r, t))
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func activeAllocation(ctx context.Context, q querier, account string, r allocation.Resource, t time.Time) (allocation.Allocation, error) {
	rows, _ := q.Query(ctx, "SELECT a.allocation_id, a.project_id, a.category, a.resource, a.start_date, a.end_date"+
		` FROM allocations a JOIN projects p USING (project_id)
		WHERE p.account = $1 AND a.resource = $2 AND a.start_date <= $3 AND $3 < a.end_date`, account, string(r), t)
	a, err := pgx.CollectExactlyOneRow(rows, scanAlloc)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("%w: account %q has no %s allocation at %s", allocation.ErrNoAllocation, account, r, t.UTC().Format(time.RFC3339))
	}
	return a, err
}
