package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A nil reader is an error naming it, not a nil dereference inside the
// scanner.
func TestReadTableNilReader(t *testing.T) {
	var cases []Case
	var err error
	assert.NotPanics(t, func() { cases, err = ReadTable(nil, "t.tsv") })
	assert.ErrorContains(t, err, "nil io.Reader")
	assert.Nil(t, cases)
}
