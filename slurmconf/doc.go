// Package slurmconf reads Slurm's configuration files as real sites write
// them: slurm.conf (with Include), topology.conf and gres.conf.
//
// It models the file formats documented in the slurm.conf(5),
// topology.conf(5) and gres.conf(5) manual pages and the node and partition
// records that the Novotný thesis (chapter 2, "Slurm overview") and the Slurm Programmer's Guide describe;
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
//   - a UTF-8 byte order mark at the start of a file, which is skipped;
//   - "Include file" lines (ParseFile only): a relative name is resolved
//     against the including file's folder, an absolute one is looked up by its
//     base name in that folder, since real sites copy configs around; glob
//     patterns are expanded; include cycles are errors;
//   - Slurm time values (60, 30:00, 02:00:00, 7-0, 1-00:00:00, INFINITE) as
//     time.Duration, with Unlimited for INFINITE/UNLIMITED.
//
// NodeName lines of one file that differ only in NodeName and NodeAddr are
// grouped into one NodeLine, their names appended in file order, whether
// the lines stand together or not: a NodeLine is a configuration, and a
// file with a line per node costs a record per kind of node, as ranges
// would. NodeLine.NamePos gives the line each name was written on (errors
// about a name use it), LineStart where each line's names start, and
// Config.NodeOrder and Config.NodeNames the names in the order of the file,
// which is Slurm's node order and no longer Nodes then Names. A Config made
// or changed by hand so that the recorded order no longer fits it (names
// removed, lines copied) gives Nodes then Names order.
//
// Keys the package does not model are kept, in order, in Config.Params or a
// record's Extra pairs: nothing in the file is lost and none of it is fatal.
//
// # Errors
//
// Every error is an *Error (position.Error) with the file, line, column and
// byte offset of the offending text, which position.Of also finds, except
// for a nil io.Reader, fs.FS or Option, which is an error matching
// ErrNilArgument. The zero Config is an empty configuration, and so is a
// nil *Config to its readers (Get, Node, NodeNames, ...); its Validate is
// an ErrNilArgument. Parsing
// checks each line; Config.Validate checks what spans lines (duplicate node
// names, partitions naming undefined nodes) and returns a sorted
// position.ErrorList, so fragments such as a lone partitions.conf still
// parse.
//
// # Budgets
//
// Every parser takes Options; WithLimits sets the budgets below (a zero
// field keeps its default). Each is checked before the memory it protects is
// allocated, and going beyond one is an *Error wrapping ErrBudget that names
// the limit and the line. Files are read line by line, and the input and
// line-length budgets are held while reading, so an endless input
// (/dev/zero as a slurm.conf, an Include or a gres.conf) stops at its first
// over-long line, after at most MaxLineLength bytes:
//
//   - Limits.Nodes (DefaultMaxNodes, 1<<20): node names all NodeName lines
//     define together;
//   - Limits.HostNames (DefaultMaxHostNames, 1<<22) and Limits.HostBytes
//     (DefaultMaxHostBytes, 128 MiB): names and bytes all hostlist values
//     expand to together; one value is also held to hostlist's own
//     DefaultLimit hosts and DefaultByteLimit bytes;
//   - Limits.Files (DefaultMaxFiles, 256) and Limits.InputBytes
//     (DefaultMaxInputBytes, 64 MiB): files read, every Include counted,
//     and bytes read from them or from an io.Reader;
//   - Limits.Inherited (DefaultMaxInherited, 1<<20): unmodelled pairs that
//     DEFAULT lines hand down to the lines after them;
//   - Limits.Pairs (DefaultMaxPairs, 1<<20): pairs kept as written
//     (Params, Extra, Record pairs, DEFAULT templates), and Limits.Records
//     (DefaultMaxRecords, 1<<16): records other than nodes (partitions,
//     FrontendName/DownNodes/NodeSet lines, gres.conf lines, switches and
//     blocks), since each costs far more memory than its text;
//   - MaxLineLength (1 MiB) per logical line and MaxIncludeDepth (16).
//
// A DEFAULT line updates a template at a cost proportional to its length,
// and the lines after it copy the template, sharing its slices (NodeAddr,
// partition Nodes and account lists): treat them as read only. Each
// NodeLine has its own Features and Gres. CPU counts (Boards*SocketsPerBoard*CoresPerSocket*ThreadsPerCore)
// must fit an int32, and the GRES counts of a node are summed per name and
// type with overflow checks, so consumers can add them without overflow.
package slurmconf
