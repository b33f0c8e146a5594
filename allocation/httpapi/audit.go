package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// AccessRecord is one request as the access log sees it. Cause is the
// error behind a 500, which the caller is not shown.
type AccessRecord struct {
	Time     time.Time     `json:"time"`
	Remote   string        `json:"remote"`
	Method   string        `json:"method"`
	Path     string        `json:"path"`
	Status   int           `json:"status"`
	UID      *uint32       `json:"uid,omitempty"` // nil when unauthenticated
	Role     string        `json:"role,omitempty"`
	ActAs    string        `json:"act_as,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Cause    string        `json:"cause,omitempty"`
}

// AuditRecord is one change made through the API: who (uid, role and
// the identity acted as), when, and what (method, path, the request body
// and the answer's status). Seq numbers the records from 1.
type AuditRecord struct {
	Seq    int64           `json:"seq"`
	Time   time.Time       `json:"time"`
	UID    uint32          `json:"uid"`
	Role   string          `json:"role"`
	ActAs  string          `json:"act_as,omitempty"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
	Status int             `json:"status"`
}

// AuditLog is an append-only file of AuditRecords, one JSON line each,
// fsynced before the change's answer is sent. Superusers read it with GET
// /audit. Safe for concurrent use.
type AuditLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
	next int64
	size int64 // the bytes of whole records: a failed append is cut back to it
}

// MaxAuditLine bounds one audit record when the log is read back.
const MaxAuditLine = MaxBodySize + 4096

// OpenAuditLog opens (creating, mode 0600) the audit log at path for
// appending. A last line without its end of line is a write that a crash
// (kill -9, a full disk) tore before Append returned: it is cut off, so the
// server starts again. Any other record that does not read is refused
// (allocation.ErrFile, naming the line).
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	a := &AuditLog{f: f, path: path, next: 1}
	if err := a.cutTornTail(); err != nil {
		f.Close()
		return nil, err
	}
	err = a.scan(func(rec AuditRecord) bool { a.next = rec.Seq + 1; return true })
	if err != nil {
		f.Close()
		return nil, err
	}
	return a, nil
}

// cutTornTail truncates the file after its last end of line and sets size.
func (a *AuditLog) cutTornTail() error {
	info, err := a.f.Stat()
	if err != nil {
		return err
	}
	end := info.Size()
	buf := make([]byte, 64<<10)
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := a.f.ReadAt(buf[:n], end-n); err != nil {
			return fmt.Errorf("audit log %s: %w", a.path, err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			end = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	if end < info.Size() {
		if err := a.f.Truncate(end); err != nil {
			return fmt.Errorf("audit log %s: cutting off a torn last record: %w", a.path, err)
		}
	}
	a.size = end
	return nil
}

// Close closes the file.
func (a *AuditLog) Close() error { return a.f.Close() }

// Append numbers rec, writes it and fsyncs the file.
func (a *AuditLog) Append(rec AuditRecord) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	rec.Seq = a.next
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if _, err := a.f.Write(line); err != nil {
		a.f.Truncate(a.size) // a torn record would make the log unreadable
		return err
	}
	if err := a.f.Sync(); err != nil {
		a.f.Truncate(a.size)
		return err
	}
	a.size += int64(len(line))
	a.next++
	return nil
}

// Records are up to limit records with Seq > after, in order.
func (a *AuditLog) Records(after int64, limit int) ([]AuditRecord, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []AuditRecord{}
	err := a.scan(func(rec AuditRecord) bool {
		if rec.Seq > after {
			out = append(out, rec)
		}
		return len(out) < limit
	})
	return out, err
}

// scan reads the records in order while f returns true.
func (a *AuditLog) scan(f func(AuditRecord) bool) error {
	r := io.NewSectionReader(a.f, 0, 1<<62)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxAuditLine)
	for line := 1; sc.Scan(); line++ {
		var rec AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%w: audit log %s: line %d: %v", allocation.ErrFile, a.path, line, err)
		}
		if !f(rec) {
			return nil
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: audit log %s: %v", allocation.ErrFile, a.path, err)
	}
	return nil
}

// auditBody is the request body as the audit record keeps it: compact
// JSON when it is JSON, else a JSON string.
func auditBody(body []byte) json.RawMessage {
	if len(body) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, body) == nil {
		return buf.Bytes()
	}
	quoted, _ := json.Marshal(string(body))
	return quoted
}

// listAudit is GET /audit: the audit records, superusers only, paged by
// seq like every list (404 when the server keeps none).
func (h *Handler) listAudit(r *request) (int, any, error) {
	if err := superuser(r); err != nil {
		return 0, nil, err
	}
	if h.audit == nil {
		return 0, nil, fmt.Errorf("%w: this server keeps no audit log", allocation.ErrNotFound)
	}
	q, err := parsePage(r)
	if err != nil {
		return 0, nil, err
	}
	recs, err := h.audit.Records(int64(q.after), q.limit+1)
	if err != nil {
		return 0, nil, err
	}
	if len(recs) > q.limit {
		recs = recs[:q.limit]
		r.header.Set(NextAfterHeader, fmt.Sprint(recs[len(recs)-1].Seq))
	}
	return http.StatusOK, recs, nil
}
