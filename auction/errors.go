package auction

import (
	"errors"
	"github.com/hpcsched/hpcsched/position"
	"slices"
	"strconv"
)

// Budgets checked by ReadJSON and Validate before the solver allocates for
// a problem. They are far above AUCSCHED3's own limits (a window of 250
// jobs, 500 bids a job, 25,000 bids in all) and keep memory bounded.
const (
	MaxNodes      = 1 << 20   // nodes of the system
	MaxJobs       = 10_000    // jobs of one window
	MaxBidsPerJob = 10_000    // bids of one job
	MaxBids       = 200_000   // bids of the window
	MaxUses       = 8_000_000 // (node, cores, GPUs) triples of the window
	MaxPerNode    = 1 << 20   // cores or GPUs on one node
	MaxPriority   = 1 << 40   // |priority|, so sums of priorities stay exact in float64
	MaxInputBytes = 512 << 20 // bytes ReadJSON reads at most
)

var (
	// ErrInvalid marks a problem that breaks the model (see Error.Path).
	ErrInvalid = errors.New("invalid auction problem")
	// ErrBudget marks a problem over one of the budgets (MaxJobs, ...).
	ErrBudget = errors.New("auction problem over budget")
	// ErrInfeasible marks a selection that breaks a constraint.
	ErrInfeasible = errors.New("infeasible selection")
)

// Error locates a problem in the input: Path is a JSON path such as
// "jobs[3].bids[1].uses[0]"; Offset is the byte offset when ReadJSON knew it.
type Error struct {
	Path   string
	Offset int64
	Err    error // ErrInvalid or ErrBudget
	Msg    string
}

// Position is the problem's place (for position.Of): the JSON path as the
// "file" and the byte offset when known.
func (e *Error) Position() position.Position {
	return position.Position{File: e.Path, Offset: int(e.Offset)}
}

func (e *Error) Error() string {
	s := "auction: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	s += e.Msg
	if e.Offset > 0 {
		s += " (near byte " + strconv.FormatInt(e.Offset, 10) + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func sortInt64(s []int64) { slices.Sort(s) }
