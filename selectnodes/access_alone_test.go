package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each list of a partition's Access refuses on its own, the others empty
// (the check answers a partition without lists at once).
func TestAccessEachListAlone(t *testing.T) {
	req := &Request{Groups: []string{"g"}, Account: "acct", QOS: "normal"}
	for name, a := range map[string]Access{
		"AllowGroups":   {AllowGroups: []string{"other"}},
		"AllowAccounts": {AllowAccounts: []string{"other"}},
		"DenyAccounts":  {DenyAccounts: []string{"acct"}},
		"AllowQOS":      {AllowQOS: []string{"high"}},
		"DenyQOS":       {DenyQOS: []string{"normal"}},
	} {
		assert.NotEmpty(t, a.check("p", req, true), name)
		root := *req
		root.Root = true
		assert.Empty(t, a.check("p", &root, true), name)
	}
	assert.Empty(t, (&Access{}).check("p", req, true))
	assert.Empty(t, (&Access{AllowQOS: []string{"ALL"}}).check("p", req, true))
}
