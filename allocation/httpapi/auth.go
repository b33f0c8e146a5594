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

const (
	Standard Role = iota
	Admin
	Superuser
)

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

// TokenFile authenticates "Authorization: Bearer TOKEN" against a token
// file. Tokens are held only as SHA-256 digests.
type TokenFile struct {
	ids map[[sha256.Size]byte]Identity
}

// MaxTokenFileSize bounds a token file (checked while reading).
const MaxTokenFileSize = 16 << 20

// LoadTokens reads a token file.
func LoadTokens(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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

func (t *TokenFile) Authenticate(r *http.Request) (Identity, error) {
	h := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || token == "" {
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
