# gen.py SEED: draws beyond-blind2's cases (seeded, so the draw is not chosen by hand)
import random, sys
seed = int(sys.argv[1]); R = random.Random(seed)
T = '\t'
def pick(xs, k): return R.sample(xs, k)
out = []
mc_loads = ["-", "g01:cpus=7 g05:cpus=4 g08:cpus=10", "g[01-04]:cpus=9 g06:cpus=10"]
mc = ["-n%d" % n for n in (10, 11, 25, 41, 90, 91)] + ["-N1 -n%d" % n for n in (10, 11)] + \
     ["-p c30 -n%d" % n for n in (30, 31, 75, 150)] + ["-p c30 -N2 -n%d" % n for n in (48, 60, 61)] + \
     ["-c11", "-p c30 -c24", "--exclusive -N1", "-p open -n40", "-w g01 -n6", "-w g05 -n12", "-N3-6 -n30", "-C md -n25", "-p c30 --exclusive -N1"]
for b in mc_loads:
    for a in pick(mc, 12): out.append(("b2_mc.conf", b, a))
lln_loads = ["-", "j01:cpus=2 j04:cpus=6 j05:cpus=18", "j[01-03]:cpus=6 j[04-06]:cpus=12 j07:cpus=5"]
lln = ["-n1", "-N1", "-N2", "-N4", "-n%d" % R.choice((10, 12, 20)), "-n%d" % R.choice((30, 40, 50)), "-n70", "-n100",
       "-c9 -n1", "-c20 -n1", "-N2 -n40", "-N1 -n20", "-p lim -n60", "-p lim -n90", "-p lim -N2", "-p cap -n1", "-p cap -n40",
       "-p cap -N2 -n30", "--exclusive -N1", "-w j02 -n12", "-x j04 -n1", "-n4 --ntasks-per-node=1", "-N2-4 -n20", "--mem=0 -N1"]
for b in lln_loads:
    for a in pick(lln, 14): out.append(("b2_lln.conf", b, a))
sh_loads = ["w01:cpus=6 w02:cpus=10 w06:cpus=4", "w[01-05]:cpus=3 w06:cpus=20"]
sh = ["-p frc -N1", "-p frc -n16 -N1", "-p frc -N3", "-p frc -n40", "-p yes -N1", "-p yes -s -N1", "-p yes -s -N2 -n30",
      "-p lln -N1", "-p lln -n1", "-p lln -N2", "-N1", "-n12 -N1", "--mem=0 -N1", "--mem=0 -N3", "--exclusive -N2",
      "-n12 --ntasks-per-node=4", "-n10 --ntasks-per-node=3", "-p frc -s -N1 -n20", "-p yes -s --mem=0 -N1", "-w w01 -N2"]
for b in sh_loads:
    for a in pick(sh, 14): out.append(("b2_share.conf", b, a))
for c, b, a in out: print(c + T + b + T + a + T + "-")
