// Package hugeconf writes the huge slurm.conf texts that slurmconf's and
// selectnodes' benchmarks and tests read: n nodes in one of three shapes,
// generated in memory so that no large file is kept in the repository.
package hugeconf
