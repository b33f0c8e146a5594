package federation

import "errors"

// Errors a caller may branch on with errors.Is. Errors a member returns
// (queue's ErrInvalidSpec, ErrRefused, ...) are passed on wrapped, so
// errors.Is still finds them.
var (
	// ErrMemberDown: a member did not answer within the call deadline, or
	// its transport failed. The grid treats it as down until it answers.
	// A Member returns an error wrapping it when a call's outcome is
	// unknown (see Member).
	ErrMemberDown = errors.New("federation: member is down")
	// ErrMemberPanicked: a member's method panicked. The grid recovers,
	// treats the member as down (the error also matches ErrMemberDown)
	// and the call's outcome as unknown, as after a timeout.
	ErrMemberPanicked = errors.New("federation: member panicked")
	// ErrUnknownMember: no member has that name.
	ErrUnknownMember = errors.New("federation: unknown member")
	// ErrDuplicateMember: a member of that name is already in the grid.
	ErrDuplicateMember = errors.New("federation: duplicate member name")
	// ErrUnknownJob: the grid knows no job with that ID and no member
	// that answered has one.
	ErrUnknownJob = errors.New("federation: unknown job")
	// ErrJobState: the job's state does not allow the operation (changing
	// the candidates of a job that started, cancelling one that ended).
	ErrJobState = errors.New("federation: job is not in a state that allows this")
	// ErrNoCandidate: no member can take the job: none of its candidates
	// has the partition, allows the account, is up, or accepts the request.
	ErrNoCandidate = errors.New("federation: no candidate member can run the job")
	// ErrInvalidSpec: the submission is malformed (a dependency that does
	// not parse or names an unknown job, an unknown candidate).
	ErrInvalidSpec = errors.New("federation: invalid job specification")
)
