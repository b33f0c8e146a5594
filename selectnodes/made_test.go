package selectnodes_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every exported method of a nil or zero Cluster panics with a message
// naming the method (or, for OfferTerms, returns ErrNilArgument), never a
// bare nil dereference: the calls are made by reflection, so a method
// added later is covered too.
func TestZeroClusterMethodsSayWhatIsWrong(t *testing.T) {
	for name, c := range map[string]*selectnodes.Cluster{"zero": {}, "nil": nil} {
		v := reflect.ValueOf(c)
		typ := v.Type()
		for m := 0; m < typ.NumMethod(); m++ {
			method := typ.Method(m)
			args := make([]reflect.Value, method.Type.NumIn()-1)
			for i := range args {
				args[i] = reflect.Zero(method.Type.In(i + 1))
			}
			if method.Type.IsVariadic() {
				args = args[:len(args)-1]
			}
			msg := callRecovering(func() { v.Method(m).Call(args) })
			if method.Name == "OfferTerms" {
				require.Empty(t, msg, "%s: OfferTerms", name)
				_, err := c.OfferTerms(&selectnodes.Request{MinNodes: 1})
				assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
				continue
			}
			assert.Contains(t, msg, "Cluster."+method.Name+" on a nil or zero Cluster", "%s: %s", name, method.Name)
		}
	}
}

func callRecovering(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = strings.TrimSpace(strings.ReplaceAll(toString(r), "\n", " "))
		}
	}()
	f()
	return ""
}

func toString(r any) string {
	if e, ok := r.(error); ok {
		return e.Error()
	}
	if s, ok := r.(string); ok {
		return s
	}
	return "non-string panic"
}
