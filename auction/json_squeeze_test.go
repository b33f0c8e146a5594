package auction

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless yields head, then fill for ever (or n bytes of it, then tail),
// at most 512 bytes a read, as a gzip stream's short reads come; read
// counts what was taken.
type endless struct {
	head, tail string
	fill       byte
	n, read    int64
	done       bool
}

func (e *endless) Read(p []byte) (int, error) {
	p = p[:min(len(p), 512)]
	k := 0
	for k < len(p) {
		switch {
		case e.read < int64(len(e.head)):
			p[k] = e.head[e.read]
		case e.n < 0 || e.read < int64(len(e.head))+e.n:
			p[k] = e.fill
		case e.read < int64(len(e.head))+e.n+int64(len(e.tail)):
			p[k] = e.tail[e.read-int64(len(e.head))-e.n]
		default:
			return k, io.EOF
		}
		e.read++
		k++
	}
	return k, nil
}

// 16 MB of whitespace (1 MB under -short) between two tokens reach the
// decoder as 4 KB: the
// reader passes on a bounded run, so the decoder's rescans of its buffer
// stay short and its buffer small, and the problem is read.
func TestReadJSONSqueezesWhitespace(t *testing.T) {
	n := int64(16 << 20)
	if testing.Short() {
		n = 1 << 20
	}
	in := &endless{head: `{"alpha":1,`, fill: ' ', n: n, tail: `"nodes":[{"cpus":1,"gpus":0}],"jobs":[]}`}
	sq := newSqueezer(in)
	jr := &jsonReader{dec: newDecoder(sq), sq: sq}
	p, err := jr.problem()
	require.NoError(t, err)
	assert.Len(t, p.Nodes, 1)
	assert.Less(t, sq.out, int64(2*squeezeRun), "bytes passed to the decoder")
	assert.Equal(t, n-squeezeRun, sq.dropped)
}

// A string without end (a gzip bomb expands to one) is refused once it
// passes MaxTokenBytes, having read little more.
func TestReadJSONRefusesAnEndlessString(t *testing.T) {
	for _, head := range []string{`{"alpha":1,"name":"`, `{"alpha":1`} {
		in := &endless{head: head, fill: '7', n: -1}
		_, err := ReadJSON(in)
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrBudget), "%v", err)
		assert.Contains(t, err.Error(), "longer than")
		assert.Less(t, in.read, int64(MaxTokenBytes+64<<10), "bytes read")
	}
}

func TestSqueezerOffsets(t *testing.T) {
	in := `{"a": "x  y",` + strings.Repeat("\n", squeezeRun+10) + `"b":1}`
	sq := newSqueezer(strings.NewReader(in))
	out, err := io.ReadAll(sq)
	require.NoError(t, err)
	assert.Equal(t, len(in)-10, len(out), "the run cut to squeezeRun; the string's spaces kept")
	at := strings.Index(string(out), `"b"`)
	assert.Equal(t, int64(strings.Index(in, `"b"`)), sq.inputOffset(int64(at)))
	assert.Equal(t, int64(3), sq.inputOffset(3))
}
