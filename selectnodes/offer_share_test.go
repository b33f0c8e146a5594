package selectnodes

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// siteRequest draws a request for a real site's cluster: a partition (its
// default, a named one, or one that does not exist), per-node minimums,
// memory, a feature or a matching OR of a node's features, GRES of a
// node's (typed or not, sometimes two), named and withheld nodes,
// sharing, and the sizes the key leaves out.
func siteRequest(r *rand.Rand, c *Cluster) *Request {
	node := c.Node(r.IntN(c.NodeCount()))
	req := &Request{CPUs: r.IntN(3 * max(1, node.CPUs)), MinNodes: r.IntN(4)}
	if parts := c.Partitions(); r.IntN(4) > 0 {
		req.Partition = parts[r.IntN(len(parts))].Name
	} else if r.IntN(8) == 0 {
		req.Partition = "nosuch"
	}
	if r.IntN(4) == 0 {
		req.MinCPUsPerNode = 1 + r.IntN(max(1, node.CPUs))
	}
	switch r.IntN(5) {
	case 0:
		req.MinMemoryPerNode = 1 + r.Int64N(max(1, node.RealMemory))
	case 1:
		req.MemPerCPU = 1 + r.Int64N(max(1, node.RealMemory/int64(max(1, node.CPUs))))
	case 2:
		req.WholeMemory = true
	}
	req.CoreTasks = r.IntN(8) == 0
	if r.IntN(8) == 0 {
		req.MaxCPUsPerSocket = 1 + r.IntN(4)
	}
	if fs := node.Features; len(fs) > 0 && r.IntN(3) == 0 {
		e := fs[r.IntN(len(fs))]
		if r.IntN(2) == 0 {
			e = "[" + e + "|" + fs[r.IntN(len(fs))] + "]"
		}
		req.Features, _ = features.Parse(e)
	}
	for k := 0; k < len(node.GRES) && r.IntN(2) == 0 && k < 2; k++ {
		g := node.GRES[r.IntN(len(node.GRES))]
		typ := ""
		if r.IntN(2) == 0 {
			typ = g.Type
		}
		lo := r.Int64N(2)
		req.GRES = append(req.GRES, GRESRequest{Name: g.Name, Type: typ, Min: lo, Max: lo + r.Int64N(max(1, g.Count))})
	}
	if r.IntN(8) == 0 {
		req.Excluded = []string{c.Node(r.IntN(c.NodeCount())).Name}
	}
	if r.IntN(8) == 0 {
		req.ExcludeNodes = bitset.New(uint(c.NodeCount()))
		for range 1 + r.IntN(c.NodeCount()) {
			req.ExcludeNodes.Set(uint(r.IntN(c.NodeCount())))
		}
	}
	req.Share = ShareRequest(r.IntN(3))
	req.Contiguous = r.IntN(10) == 0
	return req
}

// alike is req anew, its slices, bitmap and expression made again, with
// the fields OfferKey leaves out drawn afresh.
func alike(t *testing.T, r *rand.Rand, req *Request) *Request {
	b := *req
	b.Required, b.Excluded, b.GRES = slices.Clone(req.Required), slices.Clone(req.Excluded), slices.Clone(req.GRES)
	if req.ExcludeNodes != nil {
		b.ExcludeNodes = req.ExcludeNodes.Clone()
	}
	if req.Features != nil {
		e, err := features.Parse(req.Features.String())
		require.NoError(t, err)
		b.Features = e
	}
	b.CPUs, b.MinNodes, b.DesiredNodes = r.IntN(64), r.IntN(4), r.IntN(5)
	b.MaxNodes = 0
	if r.IntN(2) == 0 {
		b.MaxNodes = b.MinNodes + r.IntN(3)
	}
	b.TimeLimit = time.Duration(r.IntN(100)) * time.Hour
	b.Held, b.Root = r.IntN(10) == 0, r.IntN(2) == 0
	b.User, b.Account, b.QOS = []string{"", "u", "v"}[r.IntN(3)], []string{"", "a"}[r.IntN(2)], []string{"", "normal"}[r.IntN(2)]
	b.Groups = [][]string{nil, {"g"}, {"g", "h"}}[r.IntN(3)]
	return &b
}

// loadSite starts random jobs where the pipeline puts them.
func loadSite(r *rand.Rand, c *Cluster) {
	for id := JobID(1); id <= JobID(r.IntN(3*c.NodeCount()/2+2)); id++ {
		req := &Request{CPUs: 1 + r.IntN(8), MinNodes: 1 + r.IntN(2)}
		if r.IntN(3) == 0 {
			req.MinMemoryPerNode = 1 + r.Int64N(64_000)
		}
		if r.IntN(6) == 0 {
			req.Share = ShareExclusiveJob
		}
		if node := c.Node(r.IntN(c.NodeCount())); len(node.GRES) > 0 && r.IntN(2) == 0 {
			g := node.GRES[0]
			req.GRES = []GRESRequest{{Name: g.Name, Min: 1, Max: 1}}
		}
		if p, err := c.SelectNodes(req, RunNow); err == nil {
			_ = c.Allocate(id, p, t0, t0.Add(time.Hour))
		}
	}
}

// sameOffer requires a and b to answer alike about every node.
func sameOffer(t *testing.T, a, b *Offer, nodes, gres int, why string) {
	require.True(t, a.Nodes().Equal(b.Nodes()), why)
	require.Equal(t, a.Whole(), b.Whole(), why)
	require.Equal(t, a.CPUsPerNode(), b.CPUsPerNode(), why)
	aa, ba := a.Alternatives(), b.Alternatives()
	require.Len(t, ba, len(aa), why)
	for k := range aa {
		require.True(t, aa[k].Equal(ba[k]), why)
	}
	free := make([]int64, gres)
	for i := range nodes {
		require.Equal(t, a.CPUs(i), b.CPUs(i), "node %d: %s", i, why)
		for k := range gres {
			free[k] = a.GRES(i, k)
			require.Equal(t, free[k], b.GRES(i, k), "node %d GRES %d: %s", i, k, why)
		}
		for _, cpus := range []int{1, a.CPUs(i)} {
			require.Equal(t, a.Use(i, cpus, free...), b.Use(i, cpus, free...), "node %d: %s", i, why)
		}
	}
}

// Requests of equal keys get the same offer on every real site
// configuration under random loads, as the load changes too: the fields
// the key leaves out change no answer about a node.
func TestOfferKeySameOffer(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 17))
	compared := 0
	for _, file := range shareddata.SlurmConfs() {
		cfg, err := slurmconf.ParseFile(fsys, file)
		require.NoError(t, err)
		var opts []Option
		if r.IntN(3) == 0 {
			opts = append(opts, WithSlurmCompat())
		}
		c, err := FromConfig(cfg, opts...)
		require.NoError(t, err)
		loadSite(r, c)
		snap := c.Snapshot()
		for k := range iterations(30, 300) {
			a := siteRequest(r, c)
			b := alike(t, r, a)
			ka, oka := snap.OfferKey(a)
			kb, okb := snap.OfferKey(b)
			require.True(t, oka && okb, "%s: built-in selectors key every request", file)
			require.Equal(t, ka, kb, "%s: %+v and %+v", file, a, b)
			if k%5 == 0 { // the offers read the load as it changes
				loadSite(r, snap.c)
			}
			oa, ea := snap.Offer(a)
			ob, eb := snap.Offer(b)
			if ea != nil || eb != nil {
				continue
			}
			compared++
			sameOffer(t, oa, ob, snap.NodeCount(), len(a.GRES), file)
		}
	}
	t.Logf("%d pairs of offers compared", compared)
	assert.Greater(t, compared, 20, "offers compared")
}

// offerKeyLeftOut are the Request fields OfferKey leaves out: they decide
// node counts and errors only, which OfferTerms gives for each request.
var offerKeyLeftOut = map[string]bool{
	"MinNodes": true, "MaxNodes": true, "DesiredNodes": true, "CPUs": true, "TimeLimit": true,
	"Held": true, "Root": true, "User": true, "Groups": true, "Account": true, "QOS": true,
}

// Every field of Request is in the key, or named as left out: a field
// added to Request and not to the key fails here until it is one or the
// other.
func TestOfferKeyCoversRequest(t *testing.T) {
	c := uniform(t, 4, 4)
	gpu := GRESRequest{Name: "gpu", Min: 1, Max: 2}
	base := Request{Partition: "p", Required: []string{"n1"}, Excluded: []string{"n2"}, GRES: []GRESRequest{gpu, gpu},
		Features: mustExpr(t, "a"), ExcludeNodes: bitset.New(4), Groups: []string{"g"}}
	kb, ok := c.OfferKey(&base)
	require.True(t, ok)
	typ := reflect.TypeFor[Request]()
	for f := range typ.NumField() {
		field := typ.Field(f)
		for _, change := range changes(t, field) {
			req := base
			req.GRES = slices.Clone(base.GRES)
			change(reflect.ValueOf(&req).Elem().Field(f))
			k, ok := c.OfferKey(&req)
			require.True(t, ok)
			if offerKeyLeftOut[field.Name] {
				assert.Equal(t, kb, k, "%s is left out of the key", field.Name)
			} else {
				assert.NotEqual(t, kb, k, "a change of %s must change the key (or list it as left out)", field.Name)
			}
		}
	}
	assert.NotEqual(t, OfferKey{}, kb, "the zero key is no request's")
	_, ok = c.OfferKey(nil)
	assert.False(t, ok)
}

// changes are ways to change a field of Request's kind.
func changes(t *testing.T, f reflect.StructField) []func(v reflect.Value) {
	switch f.Type {
	case reflect.TypeFor[*features.Expr]():
		return []func(reflect.Value){
			func(v reflect.Value) { v.Set(reflect.ValueOf(mustExpr(t, "b"))) },
			func(v reflect.Value) { v.Set(reflect.ValueOf((*features.Expr)(nil))) },
		}
	case reflect.TypeFor[*bitset.BitSet]():
		return []func(reflect.Value){
			func(v reflect.Value) { v.Set(reflect.ValueOf(bitset.New(4).Set(1))) },
			func(v reflect.Value) { v.Set(reflect.ValueOf((*bitset.BitSet)(nil))) },
		}
	case reflect.TypeFor[[]GRESRequest]():
		return []func(reflect.Value){
			func(v reflect.Value) { v.Index(0).FieldByName("Type").SetString("k80") },
			func(v reflect.Value) { v.Index(1).FieldByName("Max").SetInt(3) },
			func(v reflect.Value) { v.Index(1).FieldByName("Name").SetString("mps") },
			func(v reflect.Value) { v.SetLen(1) },
		}
	case reflect.TypeFor[[]string]():
		return []func(reflect.Value){
			func(v reflect.Value) { v.Set(reflect.ValueOf([]string{"n3"})) },
			func(v reflect.Value) { v.Set(reflect.ValueOf([]string{"n", "1"})) },
		}
	}
	switch f.Type.Kind() {
	case reflect.String:
		return []func(reflect.Value){func(v reflect.Value) { v.SetString(v.String() + "x") }}
	case reflect.Bool:
		return []func(reflect.Value){func(v reflect.Value) { v.SetBool(!v.Bool()) }}
	case reflect.Int, reflect.Int64:
		return []func(reflect.Value){func(v reflect.Value) { v.SetInt(v.Int() + 1) }}
	case reflect.Uint8:
		return []func(reflect.Value){func(v reflect.Value) { v.SetUint(v.Uint() + 1) }}
	}
	t.Fatalf("Request.%s of type %v: teach this test how to change it", f.Name, f.Type)
	return nil
}

// A selector of the caller's own may read any field: its offers are not
// shared.
func TestOfferKeyOwnSelector(t *testing.T) {
	c, err := New([]Node{{Name: "n0", CPUs: 4, RealMemory: 100}}, []Partition{{Name: "p", Default: true, Nodes: []string{"n0"}}},
		WithSelector(struct{ ConsRes }{}))
	require.NoError(t, err)
	_, ok := c.OfferKey(&Request{})
	assert.False(t, ok)
}
