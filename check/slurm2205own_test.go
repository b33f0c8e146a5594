package check

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

// ownVector is one line of testdata/slurm2205-own/recorded.tsv, as
// record.sh wrote it: conf, busy, salloc args, topology, Slurm's answer
// and its note.
type ownVector struct {
	line                             int
	conf, busy, args, topo, expected string
	note                             string
}

func readOwnVectors(t *testing.T, path string) []ownVector {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []ownVector
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fs := strings.Split(text, "\t")
		require.GreaterOrEqual(t, len(fs), 5, "%s:%d: want conf, busy, args, topology, result[, note]", path, line)
		v := ownVector{line: line, conf: fs[0], busy: fs[1], args: fs[2], topo: fs[3], expected: fs[4]}
		if len(fs) > 5 {
			v.note = fs[5]
		}
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

// ownKnownGaps are the lines of recorded.tsv where compat mode does not
// yet reproduce Slurm 22.05.8, and validationGaps those of
// validation/recorded.tsv, each with the rule it is missing. The lists
// must shrink, never grow: a line that starts agreeing fails the test
// until it is removed.
var (
	ownKnownGaps   = map[int]string{}
	holdoutGaps    = map[int]string{}
	validationGaps = map[int]string{}
	probe3Gaps     = map[int]string{}
	probe4Gaps     = map[int]string{}
	blind4Gaps     = map[int]string{}
	blind3Gaps     = map[int]string{}
	blind2Gaps     = map[int]string{}
	blind5Gaps     = map[int]string{}
	blindGaps      = map[int]string{}
	blind7Gaps     = map[int]string{
		34: "cons_tres --contiguous on a loaded tree: Slurm pends where x[13-17] (a node of weight 2 last) would do; a rule that pends here (a later, lighter run too small displacing it) places blind12 97 wrongly",
	}
	blind6Gaps  = map[int]string{}
	blind8Gaps  = map[int]string{}
	probe5Gaps  = map[int]string{}
	blind9Gaps  = map[int]string{}
	blind10Gaps = map[int]string{}
	blind11Gaps = map[int]string{}
	blind13Gaps = map[int]string{}
	blind14Gaps = map[int]string{}
	blind15Gaps = map[int]string{}
	blind16Gaps = map[int]string{}
	blind18Gaps = map[int]string{
		104: "select/linear -p wide,small -n93 --contiguous: Slurm grants rd[02-03] in wide (MaxNodes=2), 32 CPUs for 93 tasks; compat mode places the job in small",
	}
	blind19Gaps = map[int]string{
		51: "cons_tres -N11 on an idle three-level tree, weight 1 all on one leaf: Slurm goes on to the weight-5 leaf beside it (5 of the 7 left), then ku[31-32]; scanLeaf prefers the branch that holds the 7 (t1), and a closest-first rule for a heavier weight breaks lines 54, 57, 60 and 140",
	}
	blind20Gaps = map[int]string{}
	probe6Gaps  = map[int]string{
		147: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		148: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		149: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		158: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		159: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		167: "l_topo9 loaded -N14: after weight 1 and s5, Slurm fills t1's weight-5 leaves (s1, s2) before s4; scanLeaf takes s4, the larger, first (as blind21 147)",
		168: "as line 167, -N16",
		169: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		170: "l_topo9 -N k -n c, weight 1 (seven nodes of 4 and 12 CPUs) short of the CPUs within the count: Slurm takes leaf s5 (its two 12-CPU weight-1 nodes, then its 24-CPU weight-5 ones) and pends (ReqNodeNotAvail) when that falls short; compatShareFit takes 24-CPU nodes elsewhere",
		185: "as blind21/recorded.tsv:15 (-N3 --contiguous, loaded)",
	}
	blind21Gaps = map[int]string{
		15:  "cons_tres -N3 --contiguous, loaded: Slurm takes zm[11-13] (32-CPU nodes of a run of four), though zm[01-03] and zm[05-07] are runs of three; the run scan pends",
		58:  "cons_tres -n151 --contiguous, loaded: Slurm pends; the run scan takes va[03-14] (twelve nodes, weights 10, 1, 10)",
		138: "as probe6/recorded.tsv:149: -N3 -n69, weight 1 short of the CPUs, Slurm pends (ReqNodeNotAvail) on an idle tree; compatShareFit takes nw[21-23]",
		142: "l_topo9 -N22, idle: Slurm fills t1's weight-5 leaves (s1, s2) before s4; scanLeaf takes s4, the larger, first (probe6 160-162 show s4 first for 18-21 nodes)",
		147: "as line 142, loaded, -N14-15",
	}
	blind22Gaps = map[int]string{}
	blind27Gaps = map[int]string{}
	blind28Gaps = map[int]string{}
	blind25Gaps = map[int]string{
		105: "cons_tres node range -N13-16 on a loaded three-level tree: Slurm takes qe[06,10-13,19-26,32-34], the fill qe[06,10-11,14-26]",
	}
	blind26Gaps = map[int]string{
		72: "cons_tres -p low -n179 --contiguous (MinNodes=3 MaxNodes=5, nodes of 8, 32 and 48 CPUs): Slurm takes ag[09-12] (192 CPUs); compat mode refuses it (node_config)",
	}
	blind23Gaps = map[int]string{}
	blind24Gaps = map[int]string{
		25:  "select/linear on a tree, -N4 -w us08 loaded: Slurm takes us[08-11] of the required node's leaf; the linear rule us[03-04,08,11]",
		104: "select/linear -p small,large -n201: Slurm refuses it at submission (node_config), compat mode leaves it pending (busy)",
	}
	blind17Gaps = map[int]string{
		110: "select/linear node range -N3-5 over weights 1 (4 CPUs) and 5 (16 CPUs), loaded: Slurm takes three of mb[05-08] and mb[25-26], the compat rules mb[05-08] and mb25",
		137: "select/linear on a tree, --ntasks-per-node=2 -N4 over 16- and 48-CPU nodes, loaded: Slurm takes ue[01-02,13-14], the fewest-CPUs-first leaf fill ue[01-03,13]",
	}
	blind12Gaps = map[int]string{}
)

// The placements a real Slurm 22.05.8 made on the confs of
// testdata/slurm2205-own (cons_tres CR_Core and CR_Core_Memory, two- and
// three-level topology/tree with select/linear and cons_tres, partitions
// with limits; idle and loaded), replayed in Slurm-compatible mode. The
// agreement is logged per family; see the folder's README.
func TestSlurm2205OwnVectors(t *testing.T) {
	replayOwn(t, filepath.Join("testdata", "slurm2205-own"), ownKnownGaps)
}

// The later sets, each recorded after the rules were corrected from the
// one before it and replayed first before any rule was changed from it
// (their first replays are in the folder's README, never edited):
// validation and hold-out (second round), blind, blind2, blind3, blind4
// and blind5 (the third round), blind6 and blind7 (fourth), blind8,
// blind9 to blind18 (fifth, drawn by blind8/gen.go across the whole
// space), blind19 to blind28 (sixth: the odd ones from its -corner mode,
// cons_tres on uneven three-level trees, the even ones across the space);
// probe3 to probe6 hold the placements recorded to find the
// rules the blind sets showed missing, fitted like the first set.
func TestSlurm2205LaterSets(t *testing.T) {
	for _, set := range []struct {
		dir  string
		gaps map[int]string
	}{
		{"validation", validationGaps}, {"holdout", holdoutGaps}, {"blind", blindGaps},
		{"blind2", blind2Gaps}, {"blind3", blind3Gaps}, {"blind4", blind4Gaps}, {"blind5", blind5Gaps}, {"probe3", probe3Gaps}, {"probe4", probe4Gaps}, {"blind6", blind6Gaps}, {"blind7", blind7Gaps},
		{"blind8", blind8Gaps}, {"probe5", probe5Gaps}, {"blind9", blind9Gaps},
		{"blind10", blind10Gaps}, {"blind11", blind11Gaps},
		{"blind12", blind12Gaps}, {"blind13", blind13Gaps},
		{"blind14", blind14Gaps}, {"blind15", blind15Gaps},
		{"blind16", blind16Gaps}, {"blind17", blind17Gaps},
		{"blind18", blind18Gaps}, {"blind19", blind19Gaps}, {"blind20", blind20Gaps}, {"probe6", probe6Gaps},
		{"blind21", blind21Gaps}, {"blind22", blind22Gaps},
		{"blind23", blind23Gaps}, {"blind24", blind24Gaps},
		{"blind25", blind25Gaps}, {"blind26", blind26Gaps},
		{"blind27", blind27Gaps}, {"blind28", blind28Gaps},
	} {
		t.Run(set.dir, func(t *testing.T) {
			replayOwn(t, filepath.Join("testdata", "slurm2205-own", set.dir), set.gaps)
		})
	}
}

func replayOwn(t *testing.T, dir string, gaps map[int]string) {
	vecs := readOwnVectors(t, filepath.Join(dir, "recorded.tsv"))
	require.NotEmpty(t, vecs)
	runners := map[string]*Runner{}
	type tally struct{ pass, all int }
	fams := map[string]*tally{}
	var classes tally // rejections Slurm and compat mode give the same class
	for _, v := range vecs {
		r := runners[v.conf+"|"+v.topo]
		if r == nil {
			opts := Options{SlurmCompat: true}
			if v.topo != "-" {
				top := readTopology(t, filepath.Join(dir, v.topo))
				opts.Cluster = append(opts.Cluster, selectnodes.WithTopologyConfig(top))
			}
			r = &Runner{Dir: dir, Options: opts}
			runners[v.conf+"|"+v.topo] = r
		}
		res := r.Run(Case{Line: v.line, Conf: v.conf, Load: v.busy, Request: v.args, Expected: v.expected})
		fam := family(v.conf)
		if fams[fam] == nil {
			fams[fam] = &tally{}
		}
		pass := res.Pass
		if want := slurmClass(v.note); v.expected == "REJECT" && want != "" {
			// a rejection must be Slurm's kind too: pending or refused
			classes.all++
			if res.Answer != nil && res.Answer.Class() == want {
				classes.pass++
			} else {
				pass = false
			}
		}
		fams[fam].all++
		if pass {
			fams[fam].pass++
		}
		_, known := gaps[v.line]
		switch {
		case known && pass:
			t.Errorf("%s/recorded.tsv:%d now agrees with Slurm: remove it from the known gaps", dir, v.line)
		case !known && !pass:
			expl := ""
			if res.Answer != nil && res.Answer.Explanation != nil {
				expl = res.Answer.Explanation.String()
			}
			t.Errorf("%s/recorded.tsv:%d: %s | %s | %s | %s: Slurm %s (%s), got %s\n%s",
				dir, v.line, v.conf, v.topo, v.busy, v.args, v.expected, v.note, res.Got, expl)
		}
	}
	names := make([]string, 0, len(fams))
	pass, all := 0, 0
	for f, n := range fams {
		names = append(names, fmt.Sprintf("%s %d/%d", f, n.pass, n.all))
		pass, all = pass+n.pass, all+n.all
	}
	sort.Strings(names)
	t.Logf("%s: agreement with Slurm 22.05.8: %d/%d (%.1f%%); %s; rejections of Slurm's class %d/%d",
		dir, pass, all, 100*float64(pass)/float64(all), strings.Join(names, ", "), classes.pass, classes.all)
}

// slurmClass is the rejection class of Slurm's note, as record.sh wrote
// it: pending for resources is busy, pending for a partition's limits
// part_config, refused at submission for the node configuration
// node_config; "" for any other note.
func slurmClass(note string) string {
	switch {
	case strings.Contains(note, "PENDING Resources"):
		return "busy"
	case strings.Contains(note, "PENDING Partition"), strings.Contains(note, "PENDING MaxMemPerLimit"):
		return "part_config"
	case strings.Contains(note, "Requested node configuration is not available"):
		return "node_config"
	}
	return ""
}

// family is the kind of configuration a conf file tests, from its name.
func family(conf string) string {
	switch {
	case strings.HasPrefix(conf, "mc"), strings.HasPrefix(conf, "b2_mc"):
		return "maxcpus"
	case strings.HasPrefix(conf, "lln"), strings.HasPrefix(conf, "lp"), strings.HasPrefix(conf, "b2_lln"):
		return "lln"
	case strings.HasPrefix(conf, "ht_"), strings.HasPrefix(conf, "cpu_"), strings.HasPrefix(conf, "sock_"), strings.HasPrefix(conf, "b3_"):
		return "cores-sockets-threads"
	case strings.HasPrefix(conf, "st_topo"):
		return "topology"
	case strings.HasPrefix(conf, "st_"):
		return "states-features-tiers"
	case strings.HasPrefix(conf, "share_"), strings.HasPrefix(conf, "b2_share"):
		return "sharing-tiers-layouts"
	case strings.HasPrefix(conf, "topo"), strings.HasPrefix(conf, "val_topo"), strings.HasPrefix(conf, "t2_topo"),
		strings.HasPrefix(conf, "b_topo"), strings.HasPrefix(conf, "c_topo"), strings.HasPrefix(conf, "d_topo"), strings.HasPrefix(conf, "e_topo"),
		strings.HasPrefix(conf, "f_topo"), strings.HasPrefix(conf, "k_topo"), strings.HasPrefix(conf, "j_topo"),
		strings.HasPrefix(conf, "x_topo"), strings.HasPrefix(conf, "y_topo"),
		strings.HasPrefix(conf, "h_topo"), strings.HasPrefix(conf, "i_topo"), strings.HasPrefix(conf, "g_topo"),
		strings.HasPrefix(conf, "m_topo"), strings.HasPrefix(conf, "r_topo"), strings.HasPrefix(conf, "u_topo"), strings.HasPrefix(conf, "v_topo"), strings.HasPrefix(conf, "z_topo"), strings.HasPrefix(conf, "a_topo"), strings.HasPrefix(conf, "n_topo"), strings.HasPrefix(conf, "w_topo"),
		strings.HasPrefix(conf, "o_topo"), strings.HasPrefix(conf, "s_topo"), strings.HasPrefix(conf, "l_topo"), strings.HasPrefix(conf, "q_topo"),
		strings.HasPrefix(conf, "o2_topo"), strings.HasPrefix(conf, "s2_topo"),
		strings.HasPrefix(conf, "o3_topo"), strings.HasPrefix(conf, "s3_topo"),
		strings.HasPrefix(conf, "o4_topo"), strings.HasPrefix(conf, "s4_topo"):
		return "topology"
	case strings.HasPrefix(conf, "part"), strings.HasPrefix(conf, "b_part"), strings.HasPrefix(conf, "d_part"), strings.HasPrefix(conf, "e_part"),
		strings.HasPrefix(conf, "h_part"), strings.HasPrefix(conf, "i_part"), strings.HasPrefix(conf, "g_part"),
		strings.HasPrefix(conf, "m_part"), strings.HasPrefix(conf, "r_part"), strings.HasPrefix(conf, "u_part"), strings.HasPrefix(conf, "v_part"), strings.HasPrefix(conf, "z_part"), strings.HasPrefix(conf, "a_part"), strings.HasPrefix(conf, "n_part"), strings.HasPrefix(conf, "w_part"), strings.HasPrefix(conf, "s_part"), strings.HasPrefix(conf, "q_part"), strings.HasPrefix(conf, "s2_part"), strings.HasPrefix(conf, "s3_part"), strings.HasPrefix(conf, "s4_part"):
		return "partitions"
	case strings.HasPrefix(conf, "val_lin"), strings.HasPrefix(conf, "t2_lin"), strings.HasPrefix(conf, "c_lin"):
		return "linear"
	case strings.HasPrefix(conf, "order"):
		return "node-order"
	}
	return "cons_tres"
}

func readTopology(t *testing.T, path string) *slurmconf.Topology {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	top, err := slurmconf.ParseTopology(f)
	require.NoError(t, err)
	return top
}
