// Package slurmconf reads Slurm's configuration files as real sites write
// them: slurm.conf (with Include), topology.conf and gres.conf.
//
// It models the file formats documented in the slurm.conf(5),
// topology.conf(5) and gres.conf(5) manual pages and the node and partition
// records that seed 000 (chapter 2, "Slurm overview") and seed 003 describe;
// no Slurm code was used. The records it produces are what selectnodes and
// topology build clusters and switch trees from.
//
// # Syntax accepted
//
//   - key=value pairs, several on a line, keys case-insensitive, blanks
//     allowed around '=' and at the start of a line, values in double quotes
//     when they hold blanks;
//   - '#' comments (outside quotes; "\#" is a literal '#'), blank lines, and
//     a trailing '\' continuing a line;
//   - NodeName=DEFAULT and PartitionName=DEFAULT lines, whose values apply to
//     the node or partition lines after them and accumulate key by key;
//   - "Include file" lines (ParseFile only): a relative name is resolved
//     against the including file's folder, an absolute one is looked up by its
//     base name in that folder, since real sites copy configs around; glob
//     patterns are expanded; include cycles and depth beyond MaxIncludeDepth
//     are errors;
//   - Slurm time values (60, 30:00, 02:00:00, 7-0, 1-00:00:00, INFINITE) as
//     time.Duration, with Unlimited for INFINITE/UNLIMITED.
//
// Keys the package does not model are kept, in order, in Config.Params or a
// record's Extra pairs: nothing in the file is lost and none of it is fatal.
//
// # Errors
//
// Every error is an *Error with the file, line and column of the offending
// text. Parsing checks each line; Config.Validate checks what spans lines
// (duplicate node names, partitions naming undefined nodes), so fragments
// such as a lone partitions.conf still parse.
//
// # Limits
//
// A line (after joining continuations) may be at most MaxLineLength bytes;
// hostlists expand to at most hostlist.DefaultLimit names per value;
// includes nest at most MaxIncludeDepth deep.
package slurmconf
