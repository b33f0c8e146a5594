# gen.py SEED: draws final-layout's cases (seeded): layout-blind3's request draw on its confs and
# on topo-share's CR_CPU and CR_Socket confs, with loads drawn by the seed too.
import random, sys
R = random.Random(int(sys.argv[1])); T = '\t'
lay = ["--hint=nomultithread", "--threads-per-core=1", "--ntasks-per-core=1", "--ntasks-per-socket=1", "--ntasks-per-socket=2", "--ntasks-per-socket=3", ""]
def req(two):
    a = R.choice(lay)
    n = R.choice([1, 2, 4, 6, 8, 10, 12, 16, 20, 30])
    extra = R.choice(["", "", "-N1", "-N2", "-c2"] + (["-p two"] if two else []))
    if extra == "-c2": n = max(1, n // 2)
    return " ".join(x for x in [a, "-n%d" % n, extra] if x)
def load(nodes, cpus, k):
    return " ".join("%s:cpus=%d" % (n, R.choice(cpus)) for n in sorted(R.sample(nodes, k)))
t = ["t%02d" % i for i in range(1, 8)]; y = ["y%02d" % i for i in range(1, 9)]
u = ["u%02d" % i for i in range(1, 7)]; s = ["s%02d" % i for i in range(1, 7)]
out = []
for conf, loads, k, two in (("b3_ht.conf", ["-", load(t, (2, 4, 6, 10), 3)], 7, True),
                            ("b3_htmem.conf", [load(y, (2, 4, 6), 3)], 7, False),
                            ("cpu_cpu.conf", ["-", load(u, (2, 4, 6), 2)], 6, False),
                            ("sock_socket.conf", ["-", load(s, (4, 6), 2)], 6, False)):
    for b in loads:
        seen = set()
        while len(seen) < k: seen.add(req(two))
        for a in sorted(seen): out.append((conf, b, a))
for c, b, a in out: print(c + T + b + T + a + T + "-")
