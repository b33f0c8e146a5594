package sbatch

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// maxCount bounds node, task and CPU counts (2^24 is beyond any machine).
const maxCount = 1 << 24

// optionTable is sbatch's vocabulary, as functions rather than a package
// table so the package keeps no mutable globals.
func optionTable() []option {
	return []option{
		{'J', "job-name", requiredArg, func(o *Options, v string) error { o.JobName = v; return nil }},
		{'p', "partition", requiredArg, func(o *Options, v string) error { return list(&o.Partitions, v) }},
		{'N', "nodes", requiredArg, setNodes},
		{'n', "ntasks", requiredArg, func(o *Options, v string) error { return count(&o.NTasks, v) }},
		{'c', "cpus-per-task", requiredArg, func(o *Options, v string) error { return count(&o.CPUsPerTask, v) }},
		{0, "ntasks-per-node", requiredArg, func(o *Options, v string) error { return count(&o.NTasksPerNode, v) }},
		{0, "mincpus", requiredArg, func(o *Options, v string) error { return count(&o.MinCPUs, v) }},
		{0, "hint", requiredArg, func(o *Options, v string) error { return o.Layout.setHint(v) }}, // layout.go
		{0, "ntasks-per-socket", requiredArg, func(o *Options, v string) error { return count(&o.Layout.TasksPerSocket, v) }},
		{0, "ntasks-per-core", requiredArg, func(o *Options, v string) error { return count(&o.Layout.TasksPerCore, v) }},
		{0, "threads-per-core", requiredArg, func(o *Options, v string) error { return count(&o.Layout.ThreadsPerCore, v) }},
		{'C', "constraint", requiredArg, func(o *Options, v string) error { o.Constraint = v; return nil }},
		{'w', "nodelist", requiredArg, func(o *Options, v string) error { return hosts(&o.NodeList, v) }},
		{'x', "exclude", requiredArg, func(o *Options, v string) error { return hosts(&o.Exclude, v) }},
		{0, "mem", requiredArg, setMem}, // layout.go: --mem=0 is the whole memory
		{0, "mem-per-cpu", requiredArg, func(o *Options, v string) error { return memory(&o.MemPerCPUMB, v) }},
		{0, "tmp", requiredArg, func(o *Options, v string) error { return memory(&o.TmpMB, v) }},
		{0, "gres", requiredArg, setGRES},
		{'G', "gpus", requiredArg, func(o *Options, v string) error { return gpus(&o.GPUs, &o.GPUType, v) }},
		{0, "gpus-per-node", requiredArg, func(o *Options, v string) error { return gpus(&o.GPUsPerNode, &o.GPUType, v) }},
		{0, "exclusive", optionalArg, setExclusive},
		{'s', "oversubscribe", noArg, setOversubscribe},
		{0, "share", noArg, setOversubscribe},
		{0, "contiguous", noArg, func(o *Options, _ string) error { o.Contiguous = true; return nil }},
		{0, "switches", requiredArg, setSwitches},
		{'t', "time", requiredArg, setTime},
		{0, "time-min", requiredArg, func(o *Options, v string) error { return duration(&o.TimeMin, v) }},
		{'b', "begin", requiredArg, func(o *Options, v string) error { o.Begin = v; return checkBegin(v) }},
		{'A', "account", requiredArg, func(o *Options, v string) error { o.Account = v; return nil }},
		{'q', "qos", requiredArg, func(o *Options, v string) error { o.QOS = v; return nil }},
		{0, "uid", requiredArg, func(o *Options, v string) error { o.User = v; return nil }},
		{0, "gid", requiredArg, func(o *Options, v string) error { o.Group = v; return nil }},
		{'d', "dependency", requiredArg, func(o *Options, v string) error { o.Dependency = v; return nil }},
		{0, "requeue", noArg, func(o *Options, _ string) error { o.Requeue = true; return nil }},
		{0, "no-requeue", noArg, func(o *Options, _ string) error { o.Requeue = false; return nil }},
		{0, "nice", optionalArg, setNice},
		{'H', "hold", noArg, func(o *Options, _ string) error { o.Hold = true; return nil }},
	}
}

func count(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxCount {
		return errors.New(strconv.Quote(v) + " is not a count from 1 to 16777216")
	}
	*dst = n
	return nil
}

func list(dst *[]string, v string) error {
	*dst = (*dst)[:0]
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			return errors.New("empty name in " + strconv.Quote(v))
		}
		*dst = append(*dst, s)
	}
	return nil
}

func setNodes(o *Options, v string) error {
	lo, hi, isRange := strings.Cut(v, "-")
	notCount := errors.New(strconv.Quote(v) + " is not a count of nodes (N or MIN-MAX, each from 1 to 16777216)")
	if count(&o.MinNodes, lo) != nil {
		return notCount
	}
	o.MaxNodes = o.MinNodes
	if isRange {
		if count(&o.MaxNodes, hi) != nil {
			return notCount
		}
		if o.MaxNodes < o.MinNodes {
			return errors.New("-N " + v + ": the maximum is below the minimum")
		}
	}
	return nil
}

func hosts(dst *[]string, v string) error {
	names, err := hostlist.Expand(v)
	if err != nil {
		return err
	}
	*dst = names
	return nil
}

// memory reads Slurm's sizes: a number with an optional unit K, M
// (default), G or T, in megabytes.
func memory(dst *int64, v string) error {
	mb, err := ParseMemory(v)
	if err != nil {
		return err
	}
	*dst = mb
	return nil
}

// ParseMemory reads a Slurm memory size ("4096", "4G", "512K", "1T") in
// megabytes, rounding kilobytes up.
func ParseMemory(v string) (int64, error) {
	num, unit := v, byte('M')
	if n := len(v); n > 0 && strings.IndexByte("KkMmGgTt", v[n-1]) >= 0 {
		num, unit = v[:n-1], v[n-1]&^0x20
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New(strconv.Quote(v) + " is not a size (a number with K, M, G or T)")
	}
	var mb int64
	switch unit {
	case 'K':
		mb = n / 1024 // rounded up below; n + 1023 would overflow near the int64 limit
		if n%1024 != 0 {
			mb++
		}
	case 'M':
		mb = n
	case 'G':
		mb = n * 1024
		if n > MaxMemoryMB/1024 {
			mb = MaxMemoryMB + 1
		}
	case 'T':
		mb = n * 1024 * 1024
		if n > MaxMemoryMB/(1024*1024) {
			mb = MaxMemoryMB + 1
		}
	}
	if mb > MaxMemoryMB {
		return 0, errors.New(strconv.Quote(v) + " is larger than MaxMemoryMB")
	}
	return mb, nil
}

func setGRES(o *Options, v string) error {
	g, err := selectnodes.ParseGRES(v)
	if err != nil {
		return err
	}
	o.GRES = append(o.GRES, g...)
	return nil
}

// gpus reads [type:]count.
func gpus(dst *int, typ *string, v string) error {
	t, n, typed := strings.Cut(v, ":")
	if !typed {
		t, n = "", v
	}
	*typ = t
	return count(dst, n)
}

// setOversubscribe is -s: it and --exclusive set one thing, how the job
// shares its nodes, so the later of the two holds, as in sbatch.
func setOversubscribe(o *Options, _ string) error {
	o.Oversubscribe, o.Exclusive, o.ExclusiveMode = true, false, ""
	return nil
}

func setExclusive(o *Options, v string) error {
	switch v {
	case "", "user", "mcs":
		o.Exclusive, o.ExclusiveMode, o.Oversubscribe = true, v, false
		return nil
	}
	return errors.New("--exclusive takes no value, user or mcs, not " + strconv.Quote(v))
}

func setSwitches(o *Options, v string) error {
	n, wait, hasWait := strings.Cut(v, "@")
	if err := count(&o.Switches, n); err != nil {
		return err
	}
	if hasWait {
		return duration(&o.SwitchesWait, wait)
	}
	return nil
}

// setTime reads -t, keeping INFINITE, UNLIMITED, -1 and 0 ("no time
// limit imposed", sbatch(1) says) as slurmconf.Unlimited: a limit given as
// none is above every partition's finite MaxTime, and Slurm holds such a
// job (PartitionTimeLimit), where one not given takes the partition's
// default.
func setTime(o *Options, v string) error {
	d, err := slurmconf.ParseDuration(v)
	if err != nil {
		return err
	}
	if d == 0 {
		d = slurmconf.Unlimited
	}
	o.TimeLimit = d
	return nil
}

func duration(dst *time.Duration, v string) error {
	d, err := slurmconf.ParseDuration(v)
	if err != nil {
		return err
	}
	if d == slurmconf.Unlimited {
		d = 0
	}
	*dst = d
	return nil
}

func setNice(o *Options, v string) error {
	if v == "" {
		o.Nice = 100 // sbatch's default adjustment
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < -2147483645 || n > 2147483645 {
		return errors.New(strconv.Quote(v) + " is not a nice value (±2147483645)")
	}
	o.Nice = n
	return nil
}
