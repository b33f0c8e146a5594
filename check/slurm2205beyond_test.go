package check

import (
	"os"
	"path/filepath"
	"testing"
)

// Sets recorded on a real Slurm 22.05.8 beyond the space the earlier ones
// drew from: partitions with MaxCPUsPerNode, SelectTypeParameters CR_LLN
// and partition LLN=YES; hyperthreaded nodes, CR_CPU and CR_Socket, task
// layouts, OverSubscribe and PriorityTier on partly loaded nodes.
// lln-maxcpus-fit and lln-probe are the sets the rules were written from
// (fitted); lln-maxcpus-blind was recorded with lln-maxcpus-fit, before
// any rule of these, and left unread until the rules were written;
// topo-share was recorded before any rule of its areas. The final-* sets
// (one per area, drawn by their gen.py with new seeds) were recorded after
// the last rule change of every area and replayed once; their known gaps
// are that first replay's misses, so the test fails if agreement drops.
// Their first replays are in the folders' READMEs.
var (
	llnFitGaps   = map[int]string{}
	finalLLNGaps = map[int]string{
		13: gapIdleAfterLoad + "b2_mc.conf g03:cpus=7 g06:cpus=9 g09:cpus=9, -N1 -n10: Slurm g04, compat mode g01",
		33: gapLLNCount + "b2_lln.conf j04:cpus=2 j07:cpus=5 j08:cpus=2, -N2 -n40: Slurm j[05-06], compat mode j[01,09]",
		34: gapLLNCount + "b2_lln.conf j04:cpus=2 j07:cpus=5 j08:cpus=2, -p lim -n90: Slurm j[07-09], compat mode REJECT:node_config",
	}
	finalLayoutGaps = map[int]string{
		4:  gapSocketFinal + "b3_ht.conf idle, --ntasks-per-socket=3 -n30 -p two: Slurm t[06-07], compat mode REJECT:node_config",
		15: gapSocketFinal + "b3_htmem.conf y02:cpus=2 y04:cpus=6 y06:cpus=6, --ntasks-per-socket=2 -n10 -N2: Slurm REJECT, compat mode y[01,07]",
		16: gapSocketFinal + "b3_htmem.conf y02:cpus=2 y04:cpus=6 y06:cpus=6, --ntasks-per-socket=2 -n30: Slurm REJECT, compat mode y[07-08]",
		17: gapSocketFinal + "b3_htmem.conf y02:cpus=2 y04:cpus=6 y06:cpus=6, --ntasks-per-socket=3 -n1: Slurm y04, compat mode y01",
		24: gapSocketFinal + "cpu_cpu.conf idle, --ntasks-per-socket=2 -n20: Slurm REJECT, compat mode u[01-05]",
		28: gapSocketFinal + "cpu_cpu.conf u03:cpus=2 u06:cpus=6, --ntasks-per-socket=1 -n6 -N2: Slurm u[01-02], compat mode u[01,05]",
		29: gapSocketFinal + "cpu_cpu.conf u03:cpus=2 u06:cpus=6, --ntasks-per-socket=2 -n30: Slurm REJECT, compat mode u[01-06]",
		43: gapSocketFinal + "sock_socket.conf s02:cpus=6 s06:cpus=4, --ntasks-per-socket=2 -n3 -c2: Slurm s01, compat mode s02",
	}
	finalShareGaps = map[int]string{
		14: gapIdleAfterLoad + "b2_share.conf w04:cpus=8 w06:cpus=20 w07:cpus=3 w08:cpus=8, -n12 -N1: Slurm w05, compat mode w01",
		24: gapForceShare + "b2_share.conf w04:cpus=8 w06:cpus=20 w07:cpus=3 w08:cpus=8, -p frc -s -N1 -n20: Slurm REJECT, compat mode w06",
		31: gapIdleAfterLoad + "share_over.conf o03:cpus=4 o04:cpus=12 o05:cpus=8, -n16 -N1: Slurm o06, compat mode o01",
	}
	finalStatesGaps = map[int]string{
		1:  gapFuture + "st_states.conf idle, -C [fat|thin] -N6: Slurm e[07-12], compat mode REJECT:part_config",
		3:  gapFuture + "st_states.conf idle, -C thin -N1: Slurm e07, compat mode e09",
		6:  gapFuture + "st_states.conf idle, -p hi,lo -N6: Slurm e[01-04,07-08], compat mode e[01-04,09-10]",
		8:  gapFuture + "st_states.conf idle, -p lo,hi -N8: Slurm e[01-04,07-10], compat mode e[01-04,09-12]",
		9:  gapFuture + "st_states.conf e02:cpus=4 e03:cpus=4 e11:cpus=10, -C [fat|thin] -N6: Slurm e[07-12], compat mode REJECT:part_config",
		12: gapFuture + "st_states.conf e02:cpus=4 e03:cpus=4 e11:cpus=10, -C fat|thin -N6: Slurm e[01-04,07-08], compat mode e[01-04,09-10]",
		13: gapFuture + "st_states.conf e02:cpus=4 e03:cpus=4 e11:cpus=10, -C thin -N5: Slurm e[07-11], compat mode REJECT:part_config",
		16: gapFuture + "st_states.conf e02:cpus=4 e03:cpus=4 e11:cpus=10, -N6: Slurm e[01-04,07-08], compat mode e[01-04,09-10]",
		19: gapFuture + "st_states.conf e02:cpus=4 e03:cpus=4 e11:cpus=10, -p hi,lo -N8: Slurm e[01-04,07-10], compat mode e[01-04,09-12]",
		21: gapFuture + "st_states.conf e02:cpus=4 e03:cpus=4 e11:cpus=10, -p lo,hi -N8: Slurm e[01-04,07-10], compat mode e[01-04,09-12]",
	}
	llnProbeGaps    = map[int]string{}
	llnBlindGaps    = map[int]string{}
	statesTiersGaps = map[int]string{
		2:  gapFuture + "st_states.conf idle, -N6: Slurm e[01-04,07-08], compat mode e[01-04,09-10]",
		3:  gapFuture + "st_states.conf idle, -n100: Slurm e[01-04,07-09], compat mode e[01-04,09-10]",
		6:  gapFuture + "st_states.conf idle, -w e07 -n1: Slurm e07, compat mode REJECT:part_config",
		10: gapFuture + "st_states.conf idle, -C fat|thin -N5: Slurm e[01-04,07], compat mode e[01-04,09]",
		11: gapFuture + "st_states.conf idle, -C [fat|thin] -N5: Slurm e[07-11], compat mode REJECT:part_config",
		12: gapCountOR + "st_states.conf idle, -C [fat*2|thin*2] -N2: Slurm REJECT, compat mode ERROR",
		16: gapFuture + "st_states.conf idle, -x e[01-03] -N2: Slurm e[04,07], compat mode e[04,09]",
		17: gapFuture + "st_states.conf idle, -x e[01-04,09] -N3: Slurm e[07-08,10], compat mode e[10-12]",
		20: gapFuture + "st_states.conf idle, -p hi,lo -N5: Slurm e[01-04,07], compat mode e[01-04,09]",
		24: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -N6: Slurm e[01-04,07-08], compat mode e[01-04,09-10]",
		25: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -n100: Slurm e[01-04,07-09], compat mode e[01-04,09-10]",
		28: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -w e07 -n1: Slurm e07, compat mode REJECT:part_config",
		32: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -C fat|thin -N5: Slurm e[01-04,07], compat mode e[01-04,09]",
		33: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -C [fat|thin] -N5: Slurm e[07-11], compat mode REJECT:part_config",
		34: gapCountOR + "st_states.conf e01:cpus=10 e09:cpus=4 -C [fat*2|thin*2] -N2: Slurm REJECT, compat mode ERROR",
		38: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -x e[01-03] -N2: Slurm e[04,07], compat mode e[04,09]",
		39: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -x e[01-04,09] -N3: Slurm e[07-08,10], compat mode e[10-12]",
		42: gapFuture + "st_states.conf e01:cpus=10 e09:cpus=4 -p hi,lo -N5: Slurm e[01-04,07], compat mode e[01-04,09]",
		47: gapSwitchNoWait + "st_topo.conf idle, -N7 --switches=1@0: Slurm k[01-06,13], compat mode REJECT:busy",
		56: gapSwitchNoWait + "st_topo.conf k[02-05]:cpus=4 k13:cpus=8 -N7 --switches=1@0: Slurm k[01-06,14], compat mode REJECT:busy",
	}
	layoutBlind3Gaps = map[int]string{
		4:  gapCoreTasks + "b3_ht.conf idle, --ntasks-per-core=1 -n5 -c2: Slurm t04, compat mode t01",
		9:  gapSocket + "b3_ht.conf idle, --ntasks-per-socket=3 -n30: Slurm t[01-05], compat mode t[01-06]",
		24: gapSocket + "b3_ht.conf t01:cpus=6 t04:cpus=4 t02:cpus=12 --ntasks-per-socket=1 -n30: Slurm t[01-07], compat mode REJECT:part_config",
		25: gapSocket + "b3_ht.conf t01:cpus=6 t04:cpus=4 t02:cpus=12 --ntasks-per-socket=2 -n1 -c2: Slurm t02, compat mode t04",
		26: gapSocket + "b3_ht.conf t01:cpus=6 t04:cpus=4 t02:cpus=12 --ntasks-per-socket=2 -n2: Slurm t02, compat mode t04",
		27: gapSocket + "b3_ht.conf t01:cpus=6 t04:cpus=4 t02:cpus=12 --ntasks-per-socket=3 -n20 -N2: Slurm t[01,06], compat mode t[06-07]",
		35: gapCoreTasks + "b3_ht.conf t[01-05]:cpus=10 --ntasks-per-core=1 -n3 -c2: Slurm t04, compat mode t01",
		36: gapSocket + "b3_ht.conf t[01-05]:cpus=10 --ntasks-per-socket=1 -n12: Slurm t[01-03], compat mode t[01-06]",
		38: gapSocket + "b3_ht.conf t[01-05]:cpus=10 --ntasks-per-socket=1 -n6 -N2: Slurm t[01-02], compat mode t[01,06]",
		41: gapSocket + "b3_ht.conf t[01-05]:cpus=10 --ntasks-per-socket=3 -n15 -c2: Slurm t[01-04], compat mode t[01-03]",
		42: gapSocket + "b3_ht.conf t[01-05]:cpus=10 --ntasks-per-socket=3 -n30 -N2: Slurm t[06-07], compat mode REJECT:node_config",
		43: gapSocket + "b3_ht.conf t[01-05]:cpus=10 --ntasks-per-socket=3 -n4 -N1: Slurm t04, compat mode t01",
		56: gapSocket + "b3_htmem.conf idle, --ntasks-per-socket=2 -n12 -N1: Slurm REJECT, compat mode y07",
		57: gapSocket + "b3_htmem.conf idle, --ntasks-per-socket=3 -n1 -c2: Slurm y01, compat mode y07",
		59: gapSocket + "b3_htmem.conf idle, --ntasks-per-socket=3 -n8 -N1: Slurm y01, compat mode y07",
		70: gapSocket + "b3_htmem.conf y01:cpus=4 y02:cpus=10 y07:cpus=6 --ntasks-per-socket=1 -n8: Slurm y[01-02], compat mode y[01-04]",
		75: gapSocket + "b3_htmem.conf y01:cpus=4 y02:cpus=10 y07:cpus=6 --ntasks-per-socket=3 -n6: Slurm y02, compat mode y01",
	}
	beyondBlind2Gaps = map[int]string{
		37: gapLLNCount + "b2_lln.conf idle, -N2 -n40: Slurm j[04-05], compat mode j[01,07]",
		47: gapLLNCount + "b2_lln.conf idle, -p lim -n90: Slurm j[07-09], compat mode REJECT:node_config",
		50: gapLLNCount + "b2_lln.conf idle, -p lim -n60: Slurm j[04-06], compat mode REJECT:node_config",
		52: gapLLNCount + "b2_lln.conf j01:cpus=2 j04:cpus=6 j05:cpus=18 -p lim -n90: Slurm j[06-08], compat mode REJECT:node_config",
		54: gapLLNCount + "b2_lln.conf j01:cpus=2 j04:cpus=6 j05:cpus=18 -p lim -n60: Slurm j[04,06-07], compat mode REJECT:node_config",
		65: gapLLNCount + "b2_lln.conf j[01-03]:cpus=6 j[04-06]:cpus=12 j07:cpus=5 -p lim -n60: Slurm j[08-09], compat mode REJECT:node_config",
		68: gapLLNCount + "b2_lln.conf j[01-03]:cpus=6 j[04-06]:cpus=12 j07:cpus=5 -p lim -n90: Slurm j[07-09], compat mode REJECT:node_config",
	}
	topoShareGaps = map[int]string{
		17:  gapCmem + "ht_coremem.conf idle, -c2 --mem-per-cpu=20000 -n3: Slurm REJECT, compat mode h[05-06]",
		35:  gapCmem + "ht_coremem.conf h01:cpus=4 h02:cpus=10 -c2 --mem-per-cpu=20000 -n3: Slurm REJECT, compat mode h[05-06]",
		56:  gapLayout + "cpu_cpu.conf u01:cpus=6 u05:cpus=10 --hint=nomultithread -n8 -N1: Slurm u06, compat mode u01",
		121: gapCmem + "share_over.conf o[01-04]:cpus=2 o07:cpus=8 -c2 --mem-per-cpu=10000 -n3: Slurm o[01-03], compat mode o[01-02]",
	}
)

// The rules topo-share's known gaps miss, recorded before any rule of
// theirs was written (its first replay, 89 / 124, is in its README).
const (
	gapFuture        = "State=FUTURE nodes: the emulator's one slurmd front end registers them and Slurm then allocates them (e07, e08); a real cluster's FUTURE nodes do not register, so this may be the emulator's, not Slurm's (unverified): "
	gapCountOR       = "a count in a matching OR: Slurm refuses it at submission (Invalid feature specification); the constraint parser refuses it too, which the replay reports as an error rather than a rejection: "
	gapSwitchNoWait  = "--switches=N@0: Slurm does not wait for the switch count and places the job at once across switches: "
	gapSocket        = "--ntasks-per-socket on hyperthreaded nodes: Slurm neither caps a node at that many tasks per socket nor spreads as the model does (held out): "
	gapCoreTasks     = "--ntasks-per-core=1 with -c2 holds one core per task, not per CPU (held out): "
	gapLLNCount      = "LLN with a node limit and a CPU total the least loaded nodes cannot reach in that many: Slurm passes over small nodes and goes on to heavier weights in a way not yet understood (held out, first replay): "
	gapLayout        = "CR_CPU on hyperthreaded nodes (a nomultithread job holds threads, not cores) is not modelled: "
	gapIdleAfterLoad = "-N1 with a CPU count on partly loaded nodes: Slurm takes an idle node after the loaded ones (g04, w05, o06), compat mode the first idle node of the weight (held out, first replay): "
	gapSocketFinal   = "--ntasks-per-socket on hyperthreaded, CR_CPU and CR_Socket nodes: Slurm refuses CPU totals the model's per-socket bound places, places some it refuses, and picks other nodes (held out, first replay): "
	gapForceShare    = "OverSubscribe=FORCE with -s on partly loaded nodes: Slurm leaves a job pending that compat mode places on a loaded node with room (held out, first replay): "
	gapCmem          = "-c with --mem-per-cpu: Slurm places one task per node (and refuses it on the hyperthreaded nodes); compat mode packs the tasks: "
)

func TestSlurm2205CPUCapAndLLN(t *testing.T) {
	for _, set := range []struct {
		dir  string
		gaps map[int]string
	}{
		{"lln-maxcpus-fit", llnFitGaps}, {"lln-probe", llnProbeGaps}, {"lln-maxcpus-blind", llnBlindGaps},
		{"topo-share", topoShareGaps}, {"beyond-blind2", beyondBlind2Gaps},
		{"layout-blind3", layoutBlind3Gaps},
		{"states-tiers", statesTiersGaps},
		{"final-lln", finalLLNGaps}, {"final-layout", finalLayoutGaps},
		{"final-share", finalShareGaps}, {"final-states", finalStatesGaps},
	} {
		t.Run(set.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "slurm2205-own", set.dir)
			if !fileExists(filepath.Join(dir, "recorded.tsv")) {
				t.Skip("not recorded yet")
			}
			replayOwn(t, dir, set.gaps)
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
