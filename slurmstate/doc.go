// Package slurmstate reads a running Slurm cluster's state from the text its
// own commands print, so that the cluster's live load can stand in for a
// hand-written one: which nodes are down or drained and why, which jobs run
// where until when, and which reservations hold which nodes.
//
// It reads three outputs, each written on a login node by one command
// (see Command):
//
//   - nodes.txt: `scontrol show node -o`, one node per line of Key=Value
//     pairs (NodeName, State, CPUTot, CPUAlloc, RealMemory, AllocMem,
//     ActiveFeatures, Partitions, Reason, ...);
//   - jobs.txt: `squeue -h -t R -o '%i|%P|%T|%D|%C|%h|%e|%N'` (SqueueFormat):
//     job id, partition, state, node count, CPUs, OverSubscribe, end time
//     and node list, separated by '|';
//   - reservations.txt: `scontrol show reservation -o`, one reservation per
//     line (ReservationName, StartTime, EndTime, Nodes, Flags, State).
//
// Apply loads the state onto a selectnodes.Cluster built from the same
// slurm.conf: node states, and every running job with its CPUs and memory
// spread so that each node's allocated CPUs and memory equal what
// scontrol reported (CPUAlloc, AllocMem), whatever the jobs' own layout.
//
// The readers are the package's only parsers. Each checks its budget
// (Limits: bytes, lines, line length, nodes named by one hostlist) while
// it reads, before it allocates for what it has read, and reports bad
// input as a *position.Error with the file, line and column. It models no
// Slurm function: the formats are those of Slurm 22.05's scontrol and
// squeue as printed by a real controller (the fixtures in testdata were
// recorded on the front-end emulator of ../shared/slurm-emulator).
package slurmstate
