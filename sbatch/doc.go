// Package sbatch reads job requests written the way users write them to
// Slurm's sbatch, salloc and srun: POSIX short and long options in every
// spelling (-N3, -N 3, --nodes=3, --nodes 3), Slurm's memory units
// (--mem=4G), time formats (-t 1-12:00:00, --begin=now+2hours), hostlists
// (-w n[1-4]), GRES (--gres=gpu:a100:4), and the running-job specs the
// CLI and placementtest use to describe a load (n[1-2]:cpus=8,mem=16G,end=2h).
//
// Parse turns arguments into Options; Options.Request and Options.Spec
// turn those into a selectnodes.Request and a queue.Spec. ScriptArgs reads
// a batch script's #SBATCH directives (up to its first command, as sbatch
// does) into arguments that go before the command line's. It models the
// option vocabulary of sbatch(1) in Slurm 22.05 (the options that decide
// placement; the rest are rejected with a clear error rather than
// silently ignored). No Slurm code was used.
//
// # Limits
//
// A command line may hold at most MaxArgs arguments of at most
// MaxArgBytes bytes each; Split reads at most MaxLineBytes, ScriptArgs at
// most MaxScriptBytes before a script's first command. Counts and sizes
// are checked for overflow (a memory size is at most MaxMemoryMB). Every
// error of Parse is an *Error naming the argument (its index) and the byte
// offset inside it; ScriptArgs' errors are *position.Error naming the
// script's line.
package sbatch
