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
// simulate also writes every job's record (--jobs FILE.csv, or FILE.swf:
// the Standard Workload Format with the simulated wait, run time, CPUs
// allocated, status and partition; a trace's other fields as the trace
// wrote them, with its queues and start time in the header, but its
// average CPU time and used memory only for a job that ran its whole run
// time; -1 where a generated workload knows nothing), averages generated
// workloads over seeds (--seeds 1-7, -j N to run them on N cores with the
// same output), and compares policies (--compare). hpcsched sweep spreads
// the same runs over a Slurm job array: "sweep plan DIR [simulate flags]"
// writes DIR/sweep.sbatch (#SBATCH --array=0-K), each task runs "sweep run
// DIR" and writes one shard, and "sweep merge DIR" prints the table a
// local run prints. A run of several that fails does not stop the others:
// the rows of those that ended are printed and written, each failed run is
// named on stderr, and the exit code is 1 (2 when every run failed, with
// nothing printed).
//
// hpcsched alloc serves an allocation ledger's REST API (package
// allocation/httpapi) until SIGTERM — "alloc serve --listen ADDR --tokens
// FILE --store FILE" (or --dsn for PostgreSQL) — and is its operator's and
// users' client: "alloc project create", "alloc create", "alloc credit",
// "alloc job cancel", "alloc usage", "alloc balance", "alloc activity"
// (per user; --history for every change) and "alloc failures", each with
// --server URL and the token from --token-file FILE or $HPCSCHED_TOKEN;
// "alloc check" and "alloc repair" read a damaged ledger file.
//
// Exit codes: 0 success, 1 the request is not runnable (explain), a
// case does not hold (check) or some of simulate's runs failed (the
// others' rows on stdout), 2 bad input (with a message on stderr, never
// on stdout).
package main
