package position

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	tests := []struct {
		pos  Position
		want string
	}{
		{Position{File: "slurm.conf", Line: 3, Column: 7, Offset: 40}, "slurm.conf:3:7"},
		{Position{File: "slurm.conf", Line: 3}, "slurm.conf:3"},
		{Position{File: "slurm.conf"}, "slurm.conf"},
		{Position{Line: 2, Column: 5}, "2:5"},
		{Position{Line: 2}, "2"},
		{Position{Column: 5, Offset: 4}, "-"},
		{Position{}, "-"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.pos.String(), "%#v", tt.pos)
	}
}

func TestAt(t *testing.T) {
	src := "ab\ncde\n\nf"
	tests := []struct {
		off  int
		want Position
	}{
		{0, Position{Line: 1, Column: 1, Offset: 0}},
		{2, Position{Line: 1, Column: 3, Offset: 2}},
		{3, Position{Line: 2, Column: 1, Offset: 3}},
		{5, Position{Line: 2, Column: 3, Offset: 5}},
		{7, Position{Line: 3, Column: 1, Offset: 7}},
		{8, Position{Line: 4, Column: 1, Offset: 8}},
		{9, Position{Line: 4, Column: 2, Offset: 9}},
		{99, Position{Line: 4, Column: 2, Offset: 9}},
		{-4, Position{Line: 1, Column: 1, Offset: 0}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, At(src, tt.off), "offset %d", tt.off)
	}
}

func TestResolve(t *testing.T) {
	base := Position{File: "f.conf", Line: 10, Column: 12, Offset: 200}
	tests := []struct {
		inner, want Position
	}{
		{Position{Line: 1, Column: 1, Offset: 0}, Position{File: "f.conf", Line: 10, Column: 12, Offset: 200}},
		{Position{Line: 1, Column: 5, Offset: 4}, Position{File: "f.conf", Line: 10, Column: 16, Offset: 204}},
		{Position{Line: 2, Column: 3, Offset: 9}, Position{File: "f.conf", Line: 11, Column: 3, Offset: 209}},
		{Position{}, base},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, base.Resolve(tt.inner), "%#v", tt.inner)
	}
}

// Resolving At inside a larger text agrees with At on the whole text.
func TestResolveAgreesWithAtProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "ab\n"
	for range 2000 {
		b := make([]byte, r.IntN(30))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		src := string(b)
		start := r.IntN(len(src) + 1)
		off := start + r.IntN(len(src)-start+1)
		got := At(src, start).Resolve(At(src[start:], off-start))
		require.Equal(t, At(src, off), got, "src %q start %d off %d", src, start, off)
	}
}

func TestCompare(t *testing.T) {
	ps := []Position{{File: "a", Line: 1}, {File: "a", Line: 1, Column: 2}, {File: "a", Line: 2}, {File: "b"}}
	for i := range ps {
		for j := range ps {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Equal(t, want, Compare(ps[i], ps[j]), "%v vs %v", ps[i], ps[j])
		}
	}
}

var errCause = errors.New("budget exceeded")

func TestError(t *testing.T) {
	e := Errorf(Position{File: "x", Line: 2, Column: 3}, "bad %s", "thing")
	assert.EqualError(t, e, "x:2:3: bad thing")
	assert.EqualError(t, Errorf(Position{}, "no place %d%%", 100), "no place 100%")

	w := Wrapf(errCause, Position{Line: 1, Column: 1}, "too many")
	assert.ErrorIs(t, fmt.Errorf("outer: %w", w), errCause)
	pos, ok := Of(fmt.Errorf("outer: %w", w))
	require.True(t, ok)
	assert.Equal(t, Position{Line: 1, Column: 1}, pos)
	_, ok = Of(io.EOF)
	assert.False(t, ok)
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	assert.NoError(t, l.Err())
	l.Add(Position{File: "b", Line: 1}, "second file")
	l.Add(Position{File: "a", Line: 9}, "late")
	l.Add(Position{File: "a", Line: 2}, "early")
	assert.Equal(t, "b:1: second file (and 2 more errors)", l.Error())
	l.Sort()
	var msgs []string
	for _, e := range l {
		msgs = append(msgs, e.Msg)
	}
	assert.Equal(t, []string{"early", "late", "second file"}, msgs)
	err := l.Err()
	require.Error(t, err)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "early", pe.Msg)
	assert.Equal(t, "a:2: early (and 1 more error)", l[:2].Error())
	assert.Equal(t, "a:2: early", l[:1].Error())

	l = append(l, Wrapf(errCause, Position{}, "limit"))
	assert.ErrorIs(t, l.Err(), errCause)
	assert.True(t, strings.HasPrefix(l.Error(), "a:2: early"))
}
