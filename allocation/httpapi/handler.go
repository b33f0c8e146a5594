package httpapi

import (
	"bytes"
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
}

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
		{"GET /failure", h.listFailures},
		{"GET /failure/{id}", h.getFailure},
	}
	for _, rt := range routes {
		h.mux.Handle(rt.pattern, h.wrap(rt.fn))
	}
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// request is one authenticated call.
type request struct {
	*http.Request
	id Identity
}

var errForbidden = errors.New("forbidden")

// apiError is a 400 naming the field.
type apiError struct {
	Field, Reason string
}

func (e *apiError) Error() string { return e.Field + ": " + e.Reason }

func fieldErr(field, format string, args ...any) error {
	return &apiError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// wrap authenticates, runs fn and writes its result or error as JSON.
func (h *Handler) wrap(fn func(*request) (int, any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := h.auth.Authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hpcsched-alloc"`)
			writeError(w, http.StatusUnauthorized, err, "")
			return
		}
		if id, err = actAs(id, r.Header.Get("X-Act-As")); err != nil {
			writeFailure(w, err)
			return
		}
		status, body, err := fn(&request{Request: r, id: id})
		if err != nil {
			writeFailure(w, err)
			return
		}
		writeJSON(w, status, body)
	})
}

type errorBody struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	// Failure is set on a 402: the refused pre-debit's numbers.
	Failure *allocation.InsufficientError `json:"failure,omitempty"`
}

func writeFailure(w http.ResponseWriter, err error) {
	var ae *apiError
	var fe *allocation.FieldError
	var ie *allocation.InsufficientError
	switch {
	case errors.As(err, &ae):
		writeError(w, http.StatusBadRequest, err, ae.Field)
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, err, fe.Field)
	case errors.As(err, &ie):
		writeJSON(w, http.StatusPaymentRequired, errorBody{Error: err.Error(), Failure: ie})
	case errors.Is(err, errForbidden):
		writeError(w, http.StatusForbidden, errors.New("forbidden for this caller"), "")
	case errors.Is(err, allocation.ErrNotFound), errors.Is(err, allocation.ErrNoAllocation):
		writeError(w, http.StatusNotFound, err, "")
	case errors.Is(err, allocation.ErrOverlap), errors.Is(err, allocation.ErrConflict):
		writeError(w, http.StatusConflict, err, "")
	case errors.Is(err, allocation.ErrInvalid), errors.Is(err, allocation.ErrOverflow):
		writeError(w, http.StatusBadRequest, err, "")
	default:
		writeError(w, http.StatusInternalServerError, err, "")
	}
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
