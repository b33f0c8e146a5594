# gen.py SEED: draws layout-blind3's cases (seeded)
import random, sys
R = random.Random(int(sys.argv[1])); T = '\t'
lay = ["--hint=nomultithread", "--threads-per-core=1", "--ntasks-per-core=1", "--ntasks-per-socket=1", "--ntasks-per-socket=2", "--ntasks-per-socket=3", ""]
def req():
    a = R.choice(lay)
    n = R.choice([1, 2, 4, 6, 8, 10, 12, 16, 20, 30])
    extra = R.choice(["", "", "-N1", "-N2", "-c2", "-p two"])
    if extra == "-c2": n = max(1, n // 2)
    return " ".join(x for x in [a, "-n%d" % n, extra] if x)
out = []
for conf, loads in (("b3_ht.conf", ["-", "t01:cpus=6 t04:cpus=4 t02:cpus=12", "t[01-05]:cpus=10"]),
                    ("b3_htmem.conf", ["-", "y01:cpus=4 y02:cpus=10 y07:cpus=6"])):
    for b in loads:
        seen = set()
        while len(seen) < 16:
            seen.add(req())
        for a in sorted(seen): out.append((conf, b, a))
for c, b, a in out: print(c + T + b + T + a + T + "-")
