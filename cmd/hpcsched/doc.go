// Command hpcsched runs the hpcsched library from a shell:
//
//	hpcsched simulate --workload aucsched:6 --backfill                     # replay a workload
//	hpcsched explain --conf placementtest/testdata/site.conf -N2 -C new    # would it run, where, why not
//	hpcsched explain --conf placementtest/testdata/site.conf -p gpu --gpus=8   # exit 1: never on this site
//	hpcsched check placementtest/testdata/site.tsv                         # a table of expected placements
//	hpcsched hostlist expand 'tux[1-3]'                                    # hostlist expressions
//
// The commands above run as written from the repository's root (a test
// runs each one). explain takes sbatch's own options (-N3, --nodes=3,
// -C, -p a,b, --mem=4G, --gres, ...; see package sbatch).
//
// hpcsched alloc serves an allocation ledger's REST API (package
// allocation/httpapi) until SIGTERM — "alloc serve --listen ADDR --tokens
// FILE --store FILE" (or --dsn for PostgreSQL) — and prints its tables as a
// client: "alloc balance", "alloc activity" (per user; --history for every
// change) and "alloc failures", each with --server URL --token T.
//
// Exit codes: 0 success, 1 the request is not runnable (explain) or a
// case does not hold (check), 2 bad input (with a message on stderr,
// never on stdout).
package main
