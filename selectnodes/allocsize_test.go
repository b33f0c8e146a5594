package selectnodes

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A placement holds one NodeAlloc per node and every started job keeps
// its placement: the GRES keys and slots live in the GRESAlloc entries
// (which only GRES nodes have), not in a second slice on every node.
func TestAllocationRecordsAreSmall(t *testing.T) {
	assert.Equal(t, uintptr(48), unsafe.Sizeof(NodeAlloc{}))
	assert.Equal(t, uintptr(48), unsafe.Sizeof(GRESAlloc{}))
}
