package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// MaxBodySize bounds a request body (checked while reading).
const MaxBodySize = 1 << 20

// Handler is the REST API over a Ledger.
type Handler struct {
	ledger *allocation.Ledger
	auth   Authenticator
	now    func() time.Time
	mux    *http.ServeMux
	audit  *AuditLog
	access func(AccessRecord)
}

// SetAudit records every change made through h (who, when, what) in a,
// readable by superusers with GET /audit. Call it before serving.
func (h *Handler) SetAudit(a *AuditLog) { h.audit = a }

// SetAccessLog calls f once per request after its answer is written (for
// a 500, with the cause the caller is not shown). Call it before serving.
func (h *Handler) SetAccessLog(f func(AccessRecord)) { h.access = f }

// New serves ledger to callers auth identifies; now is the clock used for
// pre-debits, completions and active=.
func New(ledger *allocation.Ledger, auth Authenticator, now func() time.Time) *Handler {
	h := &Handler{ledger: ledger, auth: auth, now: now, mux: http.NewServeMux()}
	routes := []struct {
		pattern string
		fn      func(*request) (int, any, error)
	}{
		{"GET /project", h.listProjects},
		{"GET /project/{id}", h.getProject},
		{"POST /project", h.createProject},
		{"PUT /project/{id}", h.updateProject},
		{"DELETE /project/{id}", h.deleteProject},
		{"GET /alloc", h.listAllocs},
		{"GET /alloc/{id}", h.getAlloc},
		{"POST /alloc", h.createAlloc},
		{"PUT /alloc/{id}", h.updateAlloc},
		{"DELETE /alloc/{id}", h.deleteAlloc},
		{"POST /alloc/{id}/credit", h.credit},
		{"GET /alloc/{id}/activity", h.activity},
		{"GET /alloc/{id}/debits", h.debits},
		{"GET /job", h.listJobs},
		{"GET /job/{id}", h.getJob},
		{"POST /job", h.preDebit},
		{"PUT /job/{id}", h.complete},
		{"DELETE /job/{id}", h.cancelJob},
		{"GET /failure", h.listFailures},
		{"GET /failure/{id}", h.getFailure},
		{"GET /audit", h.listAudit},
		{"GET /sitefactor", h.siteFactor},
	}
	for _, rt := range routes {
		h.mux.Handle(rt.pattern, h.wrap(rt.fn))
	}
	return h
}

// ServeHTTP routes the request; see the package doc for the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// request is one authenticated call.
type request struct {
	*http.Request
	id     Identity
	header http.Header // the response's
}

var errForbidden = errors.New("forbidden")

// hidden is the answer for a record the caller may not see: the same 404
// as for one that does not exist, so IDs reveal nothing.
func hidden(what string, id int64) error {
	return fmt.Errorf("%w: %s %d", allocation.ErrNotFound, what, id)
}

// apiError is a 400 naming the field.
type apiError struct {
	Field, Reason string
}

func (e *apiError) Error() string { return e.Field + ": " + e.Reason }

func fieldErr(field, format string, args ...any) error {
	return &apiError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// wrap authenticates, runs fn, writes its result or error as JSON, and
// records the request in the access log and, when it changed something,
// in the audit log.
func (h *Handler) wrap(fn func(*request) (int, any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := h.now()
		rec := AccessRecord{Time: start, Remote: r.RemoteAddr, Method: r.Method, Path: r.URL.RequestURI()}
		var body []byte
		status, cause := h.serve(w, r, fn, &rec, &body)
		rec.Status, rec.Duration = status, h.now().Sub(start)
		if cause != nil {
			rec.Cause = cause.Error()
		}
		if h.access != nil {
			h.access(rec)
		}
	})
}

// serve answers r; it returns the status sent and, for a 500, the cause.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, fn func(*request) (int, any, error), rec *AccessRecord, body *[]byte) (int, error) {
	id, err := h.auth.Authenticate(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hpcsched-alloc"`)
		writeError(w, http.StatusUnauthorized, err, "")
		return http.StatusUnauthorized, nil
	}
	uid := id.UID
	rec.UID, rec.Role, rec.ActAs = &uid, id.Role.String(), r.Header.Get("X-Act-As")
	acting, err := actAs(id, rec.ActAs)
	if err != nil {
		return writeFailure(w, err), nil
	}
	change := r.Method != http.MethodGet && r.Method != http.MethodHead
	if change { // kept for the audit record; decode reads it again
		data, err := io.ReadAll(io.LimitReader(r.Body, MaxBodySize+1))
		if err != nil {
			return writeFailure(w, fieldErr("body", "%v", err)), nil
		}
		*body = data
		r.Body = io.NopCloser(bytes.NewReader(data))
	}
	status, out, err := fn(&request{Request: r, id: acting, header: w.Header()})
	if err == nil && change && h.audit != nil {
		err = h.audit.Append(AuditRecord{Time: rec.Time, UID: id.UID, Role: rec.Role, ActAs: rec.ActAs,
			Method: r.Method, Path: r.URL.RequestURI(), Body: auditBody(*body), Status: status})
		if err != nil {
			err = fmt.Errorf("the change was made but its audit record could not be written: %w", err)
		}
	}
	if err != nil {
		status = writeFailure(w, err)
		if status == http.StatusInternalServerError {
			return status, err
		}
		return status, nil
	}
	writeJSON(w, status, out)
	return status, nil
}

type errorBody struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	// Failure is set on a 402: the refused pre-debit's numbers.
	Failure *allocation.InsufficientError `json:"failure,omitempty"`
}

// writeFailure answers err with its status, which it returns. An error
// that is not the ledger's own (a database failure) is answered 500 with
// a message that reveals nothing of it; the access log gets the cause.
func writeFailure(w http.ResponseWriter, err error) int {
	var ae *apiError
	var fe *allocation.FieldError
	var ie *allocation.InsufficientError
	var status int
	switch {
	case errors.As(err, &ae):
		status = http.StatusBadRequest
		writeError(w, status, err, ae.Field)
	case errors.As(err, &fe):
		status = http.StatusBadRequest
		writeError(w, status, err, fe.Field)
	case errors.As(err, &ie):
		status = http.StatusPaymentRequired
		writeJSON(w, status, errorBody{Error: err.Error(), Failure: ie})
	case errors.Is(err, errForbidden):
		status = http.StatusForbidden
		writeError(w, status, errors.New("forbidden for this caller"), "")
	case errors.Is(err, allocation.ErrNotFound), errors.Is(err, allocation.ErrNoAllocation):
		status = http.StatusNotFound
		writeError(w, status, err, "")
	case errors.Is(err, allocation.ErrOverlap), errors.Is(err, allocation.ErrConflict):
		status = http.StatusConflict
		writeError(w, status, err, "")
	case errors.Is(err, allocation.ErrInvalid), errors.Is(err, allocation.ErrOverflow):
		status = http.StatusBadRequest
		writeError(w, status, err, "")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		status = http.StatusServiceUnavailable
		writeError(w, status, errors.New("the request was cancelled or timed out"), "")
	case errors.Is(err, allocation.ErrClosed):
		// A request still running when the server closed its store on
		// shutdown: nothing was recorded, and a retry may pass.
		status = http.StatusServiceUnavailable
		writeError(w, status, errors.New("the ledger is closed (the server is shutting down); retry"), "")
	default:
		status = http.StatusInternalServerError
		writeError(w, status, errors.New("internal error; the server's log has the cause"), "")
	}
	return status
}

func writeError(w http.ResponseWriter, status int, err error, field string) {
	writeJSON(w, status, errorBody{Error: err.Error(), Field: field})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	if body == nil {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body) // the status is sent; a failed write has no one to tell
}

// decode reads exactly one JSON object into v, refusing unknown fields
// and bodies over MaxBodySize; errors name the field.
func decode(r *request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxBodySize+1))
	if err != nil {
		return fieldErr("body", "%v", err)
	}
	if len(data) > MaxBodySize {
		return fieldErr("body", "larger than %d bytes", MaxBodySize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field == "":
			// The body itself is not an object (an array, a string): te.Type
			// would be a Go type name the caller never saw.
			return fieldErr("body", "want a JSON object, got %s", te.Value)
		case errors.As(err, &te):
			return fieldErr(te.Field, "want a JSON %s, got %s", te.Type, te.Value)
		case errors.As(err, &se):
			return fieldErr("body", "malformed JSON at byte %d: %v", se.Offset, err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
			return fieldErr(name, "unknown field")
		}
		return fieldErr("body", "%v", err)
	}
	if dec.More() {
		return fieldErr("body", "more than one JSON value")
	}
	return nil
}

// pathID is the {id} path value as a positive integer.
func pathID(r *request) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, fieldErr("id", "%q is not a positive integer", r.PathValue("id"))
	}
	return n, nil
}

func superuser(r *request) error {
	if r.id.Role != Superuser {
		return errForbidden
	}
	return nil
}
