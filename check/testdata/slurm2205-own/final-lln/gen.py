# gen.py SEED: draws final-lln's cases (seeded): beyond-blind2's MaxCPUsPerNode and LLN
# request templates on its confs, with loads drawn by the seed too.
import random, sys
R = random.Random(int(sys.argv[1])); T = '\t'
SIZE = {'j01': 8, 'j02': 8, 'j03': 8}  # nodes smaller than every drawn CPU count take at most their size
def load(nodes, cpus, k):
    return " ".join("%s:cpus=%d" % (n, min(R.choice(cpus), SIZE.get(n, 99))) for n in sorted(R.sample(nodes, k)))
out = []
mc = ["-n%d" % n for n in (10, 11, 25, 41, 90, 91)] + ["-N1 -n%d" % n for n in (10, 11)] + \
     ["-p c30 -n%d" % n for n in (30, 31, 75, 150)] + ["-p c30 -N2 -n%d" % n for n in (48, 60, 61)] + \
     ["-c11", "-p c30 -c24", "--exclusive -N1", "-p open -n40", "-w g01 -n6", "-w g05 -n12", "-N3-6 -n30", "-C md -n25", "-p c30 --exclusive -N1"]
g = ["g%02d" % i for i in range(1, 10)]
for b in ["-", load(g, (2, 4, 7, 9, 10), 3), load(g, (3, 6, 10), 4)]:
    for a in R.sample(mc, 8): out.append(("b2_mc.conf", b, a))
lln = ["-n1", "-N1", "-N2", "-N4", "-n%d" % R.choice((10, 12, 20)), "-n%d" % R.choice((30, 40, 50)), "-n70", "-n100",
       "-c9 -n1", "-c20 -n1", "-N2 -n40", "-N1 -n20", "-p lim -n60", "-p lim -n90", "-p lim -N2", "-p cap -n1", "-p cap -n40",
       "-p cap -N2 -n30", "--exclusive -N1", "-w j02 -n12", "-x j04 -n1", "-n4 --ntasks-per-node=1", "-N2-4 -n20", "--mem=0 -N1"]
j = ["j%02d" % i for i in range(1, 10)]
for b in ["-", load(j, (2, 5, 6, 8), 3), load(j, (4, 6, 12, 18), 4)]:
    for a in R.sample(lln, 10): out.append(("b2_lln.conf", b, a))
for c, b, a in out: print(c + T + b + T + a + T + "-")
