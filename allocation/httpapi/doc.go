// Package httpapi serves an allocation.Ledger over HTTP: the REST
// interface of the HADM paper's system (its Flask "Web API"), with the paths
// /project, /alloc, /job and /failure.
//
// GET on a collection lists the objects the caller may see, narrowed by
// query parameters (gid=, account=, project_id=, active=true|false,
// uid=); GET /x/{id} reads one. Superusers create (POST, 201), update
// (PUT) and delete (DELETE, 204); POST /alloc/{id}/credit adds credit.
// POST /job is a job's pre-debit (job_id, uid, account, resource, amount,
// and optionally units, the billable cores or GPUs, so the completion can
// be computed from the elapsed time): 201, or 402 Payment Required with
// the failure recorded when the balance is short. PUT /job/{job_id} is
// the completion (elapsed seconds, outcome, optionally the actual
// amount). Retrying either changes nothing. DELETE /job/{job_id}
// returns the pre-debit of a job that never started (204; 409 for a
// completed job). GET /sitefactor?account=&partition= is the site factor
// of the account's jobs in the partition; GET /audit (superusers) the
// audit records when the server keeps them (SetAudit).
//
// Every list is paged by ID: ?limit= (DefaultPage when absent, at most
// MaxPage) and ?after= (the last ID of the previous page); when more
// follow, the X-Next-After header gives the next page's cursor.
//
// # Roles
//
// A superuser may do everything and may act as another user (header
// X-Act-As: "uid gid[,gid...]"); an admin reads everything and may also
// act as another user, which only narrows what it sees; a standard user
// reads the projects whose gid it is in, their allocations, activity and
// failures, and its own jobs. Errors: 401 without valid credentials, 403
// for anyone but a superuser writing, 400 for malformed JSON, unknown
// fields or bad values (the body names the field), 404 for a record that
// does not exist or that the caller may not see (the two are answered
// alike, so IDs reveal nothing), 409 for overlaps and conflicting
// retries, 503 for a request cancelled or meeting a store closed on
// shutdown (nothing was changed; retry), 500 for a failure of the store,
// whose text the caller is not shown (SetAccessLog receives it).
//
// # Authentication
//
// Authenticator turns a request into an Identity. TokenFile ships: a
// file of "token uid gid[,gid...] role" lines, checked as a bearer token.
// A site with MUNGE, as DARWIN uses, implements Authenticator by decoding
// a credential from a request header with libmunge (via cgo or the munge
// command) and mapping the sender's uid and gids, with the role from its
// own configuration; an OIDC site verifies the bearer JWT against the
// issuer's keys and maps claims to uid, gids and role. Neither needs a
// change here: pass it to New.
//
// The handler reads the time through the now function it is given (the
// server passes time.Now); it starts no goroutines. Every change it makes
// is recorded by the AuditLog given to SetAudit (who, when, what) before
// its answer is sent; SetAccessLog receives one AccessRecord per request.
package httpapi
