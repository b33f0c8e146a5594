# gen.py SEED: draws final-share's cases (seeded): beyond-blind2's sharing templates and
# topo-share's sharing, tier and node-count templates on their confs, loads drawn by the seed.
import random, sys
R = random.Random(int(sys.argv[1])); T = '\t'
SIZE = {'w01': 16, 'w02': 16, 'w03': 16, 'w04': 16, 'w05': 16}  # nodes smaller than every drawn CPU count take at most their size
def load(nodes, cpus, k):
    return " ".join("%s:cpus=%d" % (n, min(R.choice(cpus), SIZE.get(n, 99))) for n in sorted(R.sample(nodes, k)))
out = []
sh = ["-p frc -N1", "-p frc -n16 -N1", "-p frc -N3", "-p frc -n40", "-p yes -N1", "-p yes -s -N1", "-p yes -s -N2 -n30",
      "-p lln -N1", "-p lln -n1", "-p lln -N2", "-N1", "-n12 -N1", "--mem=0 -N1", "--mem=0 -N3", "--exclusive -N2",
      "-n12 --ntasks-per-node=4", "-n10 --ntasks-per-node=3", "-p frc -s -N1 -n20", "-p yes -s --mem=0 -N1", "-w w01 -N2"]
w = ["w%02d" % i for i in range(1, 9)]
for b in [load(w, (2, 4, 6, 10), 3), load(w, (3, 8, 12, 20), 4)]:
    for a in R.sample(sh, 12): out.append(("b2_share.conf", b, a))
so = ["--exclusive -N1", "--exclusive -N2", "--exclusive -N3", "--mem=0 -N1", "--mem=0 -N2", "-N1", "-N2 -n20", "-N3 -n3",
      "-n12 -N1", "-n16 -N1", "-n24", "-n40", "--ntasks-per-node=4 -n12", "--ntasks-per-node=8 -n20", "--ntasks-per-node=10 -n20",
      "--mem-per-cpu=3000 -n8", "-p excl -N1", "-p excl -n1", "-p force -N1", "-p force -n16 -N1", "-p force -s -N2 -n40",
      "-p hi -N2", "-p hi,lo -N3", "-p lo -N2", "-p lo,hi -N1", "-p yes -N1", "-p yes -s -N1", "-p hi,lo -n40", "-w o01 -N3", "-x o[01-03],o05 -N3"]
o = ["o%02d" % i for i in range(1, 9)]
for b in [load(o, (2, 4, 8, 12), 3), load(o, (2, 6, 10), 4)]:
    for a in R.sample(so, 13): out.append(("share_over.conf", b, a))
for c, b, a in out: print(c + T + b + T + a + T + "-")
