# gen.py SEED: draws final-states's cases (seeded): states-tiers' templates (node states, features,
# node lists, tiers, --switches) with drawn counts and loads.
import random, sys
R = random.Random(int(sys.argv[1])); T = '\t'
def load(nodes, cpus, k):
    return " ".join("%s:cpus=%d" % (n, R.choice(cpus)) for n in sorted(R.sample(nodes, k)))
N = lambda: R.choice([1, 2, 3, 4, 5, 6, 8])
st = lambda: ["-N%d" % N(), "-n%d" % R.choice([20, 40, 64, 100, 130]), "-w %s -n1" % R.choice(["e05", "e06", "e09", "e12"]),
    "-C fat -N%d" % N(), "-C thin -N%d" % N(), "-C fat*1&ib -N%d" % R.choice([2, 3, 4]), "-C fat|thin -N%d" % N(),
    "-C [fat|thin] -N%d" % N(), "-C fat*2&thin*%d -N%d" % (R.choice([1, 2]), R.choice([3, 4])), "-C ib -n%d" % R.choice([16, 40, 70]),
    "-w e%02d -N%d" % (R.choice([1, 2, 9]), R.choice([2, 3])), "-w e[01-02] -N%d" % R.choice([3, 4]),
    "-x e[%02d-%02d] -N2" % (1, R.choice([2, 3, 4])), "-x e[01-04,%02d] -N%d" % (R.choice([9, 10]), R.choice([1, 2])),
    "-p hi -N%d" % R.choice([1, 2, 4, 5]), "-p lo -N%d" % N(), "-p hi,lo -N%d" % N(), "-p lo,hi -N%d" % N(), "-p all,hi -n%d" % R.choice([20, 50])]
e = ["e01", "e02", "e03", "e04", "e09", "e10", "e11", "e12"]
out = []
for b in ["-", load(e, (4, 8, 10, 14), 3)]:
    seen = set()
    while len(seen) < 14: seen.add(R.choice(st()))
    for a in sorted(seen): out.append(("st_states.conf", b, a, "-"))
sw = lambda: ["-N%d --switches=%d" % (R.choice([3, 4, 5, 6, 7, 9]), R.choice([1, 2])), "-N%d --switches=1@%d" % (R.choice([4, 6, 7]), R.choice([5, 10])),
    "-C %s -N%d --switches=1" % (R.choice("ab"), R.choice([2, 4, 5])), "-n%d --switches=%d" % (R.choice([24, 40, 56]), R.choice([1, 2])),
    "-w k%02d -N%d --switches=1" % (R.choice([1, 5, 13]), R.choice([3, 6])), "-x k[01-%02d] -N%d" % (R.choice([3, 4, 8]), R.choice([4, 6]))]
k = ["k%02d" % i for i in range(1, 17)]
for b in ["-", load(k, (2, 4, 8), 4)]:
    seen = set()
    while len(seen) < 9: seen.add(R.choice(sw()))
    for a in sorted(seen): out.append(("st_topo.conf", b, a, "st_topo.topology"))
for c, b, a, tp in out: print(c + T + b + T + a + T + tp)
