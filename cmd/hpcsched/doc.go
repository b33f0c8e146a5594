// Command hpcsched runs the hpcsched library from a shell:
//
//	hpcsched simulate --workload aucsched:6 --backfill       # replay a workload
//	hpcsched explain --conf slurm.conf -N 2 -C 'A*1&B*2'       # would it run, where, why not
//	hpcsched hostlist expand 'tux[1-3]'                       # hostlist expressions
//
// Exit codes: 0 success, 1 the request is not runnable (explain), 2 bad
// input (with a message on stderr).
package main
