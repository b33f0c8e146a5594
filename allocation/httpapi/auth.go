package httpapi

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Role is a caller's privilege.
type Role int

// The roles, least privileged first: a standard user reads its projects'
// records and its own jobs, an admin reads everything, a superuser also
// writes.
const (
	Standard Role = iota
	Admin
	Superuser
)

// String is the role's name as token files spell it.
func (r Role) String() string {
	switch r {
	case Admin:
		return "admin"
	case Superuser:
		return "superuser"
	}
	return "standard"
}

// ParseRole accepts superuser, admin or standard.
func ParseRole(s string) (Role, error) {
	switch s {
	case "superuser":
		return Superuser, nil
	case "admin":
		return Admin, nil
	case "standard":
		return Standard, nil
	}
	return 0, fmt.Errorf("role %q is not superuser, admin or standard", s)
}

// Identity is an authenticated caller.
type Identity struct {
	UID  uint32
	GIDs []uint32
	Role Role
}

// InGroup reports whether the caller is a member of gid.
func (id Identity) InGroup(gid uint32) bool { return slices.Contains(id.GIDs, gid) }

// ErrUnauthenticated: the request carries no valid credentials (401).
var ErrUnauthenticated = errors.New("httpapi: unauthenticated")

// Authenticator identifies a request's caller; it returns an error
// matching ErrUnauthenticated when it cannot.
type Authenticator interface {
	Authenticate(r *http.Request) (Identity, error)
}

// TokenFile authenticates "Authorization: Bearer TOKEN" (the scheme in
// any case) against a token
// file. Tokens are held only as SHA-256 digests.
type TokenFile struct {
	ids map[[sha256.Size]byte]Identity
}

// ErrNoTokens: a token file names no token, so it would refuse every
// caller; it is refused instead.
var ErrNoTokens = errors.New("httpapi: the token file has no token lines")

// MaxTokenFileSize bounds a token file (checked while reading).
const MaxTokenFileSize = 16 << 20

// MinPrivilegedToken is the shortest token a superuser or admin line may
// carry: such a token can credit any allocation.
const MinPrivilegedToken = 16

// LoadTokens reads a token file. The file must not be readable or
// writable by group or others (its tokens are credentials).
func LoadTokens(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%s: mode %04o lets group or others read or change its tokens; chmod 600 it", path, perm)
	}
	t, err := ParseTokens(f)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return t, nil
}

// ParseTokens reads "token uid gid[,gid...] role" lines; blank lines and
// lines starting with # are skipped. Errors name the line.
func ParseTokens(r io.Reader) (*TokenFile, error) {
	t := &TokenFile{ids: map[[sha256.Size]byte]Identity{}}
	sc := bufio.NewScanner(io.LimitReader(r, MaxTokenFileSize))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		token, id, err := parseTokenLine(text)
		if err != nil {
			return nil, fmt.Errorf("%d: %v", line, err)
		}
		key := sha256.Sum256([]byte(token))
		if _, dup := t.ids[key]; dup {
			return nil, fmt.Errorf("%d: token repeated", line)
		}
		t.ids[key] = id
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%d: %v", line+1, err)
	}
	if len(t.ids) == 0 {
		return nil, ErrNoTokens
	}
	return t, nil
}

func parseTokenLine(text string) (string, Identity, error) {
	f := strings.Fields(text)
	if len(f) != 4 {
		return "", Identity{}, fmt.Errorf("want \"token uid gid[,gid...] role\", got %d fields", len(f))
	}
	uid, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return "", Identity{}, fmt.Errorf("uid %q is not a number", f[1])
	}
	gids, err := parseGIDs(f[2])
	if err != nil {
		return "", Identity{}, err
	}
	role, err := ParseRole(f[3])
	if err != nil {
		return "", Identity{}, err
	}
	if role != Standard && len(f[0]) < MinPrivilegedToken {
		return "", Identity{}, fmt.Errorf("a %s token must have at least %d characters, this one has %d", role, MinPrivilegedToken, len(f[0]))
	}
	return f[0], Identity{UID: uint32(uid), GIDs: gids, Role: role}, nil
}

func parseGIDs(s string) ([]uint32, error) {
	var gids []uint32
	for g := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseUint(g, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("gid %q is not a number", g)
		}
		gids = append(gids, uint32(n))
	}
	return gids, nil
}

// Authenticate implements Authenticator: the identity of the request's
// bearer token, or an error matching ErrUnauthenticated.
func (t *TokenFile) Authenticate(r *http.Request) (Identity, error) {
	// The scheme is case-insensitive (RFC 7235): "bearer" is "Bearer".
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return Identity{}, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	id, ok := t.ids[sha256.Sum256([]byte(token))]
	if !ok {
		return Identity{}, fmt.Errorf("%w: unknown token", ErrUnauthenticated)
	}
	return id, nil
}

// actAs applies an X-Act-As header ("uid gid[,gid...]"): a superuser or
// admin then acts as that standard user.
func actAs(id Identity, header string) (Identity, error) {
	if header == "" {
		return id, nil
	}
	if id.Role == Standard {
		return Identity{}, errForbidden
	}
	f := strings.Fields(header)
	if len(f) != 2 {
		return Identity{}, fieldErr("X-Act-As", "want \"uid gid[,gid...]\"")
	}
	uid, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return Identity{}, fieldErr("X-Act-As", "uid %q is not a number", f[0])
	}
	gids, err := parseGIDs(f[1])
	if err != nil {
		return Identity{}, fieldErr("X-Act-As", "%v", err)
	}
	return Identity{UID: uint32(uid), GIDs: gids, Role: Standard}, nil
}
