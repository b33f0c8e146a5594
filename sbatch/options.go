package sbatch

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Options are the placement-relevant options of an sbatch command line.
// Zero values mean "not given".
type Options struct {
	JobName    string
	Partitions []string // -p a,b: the job may run in any; the earliest start wins
	// MinNodes and MaxNodes from -N min[-max]; MaxNodes is MinNodes when
	// no range was given.
	MinNodes, MaxNodes int
	NTasks             int // -n
	CPUsPerTask        int // -c
	NTasksPerNode      int
	MinCPUs            int // --mincpus
	Constraint         string
	NodeList           []string // -w, expanded
	Exclude            []string // -x, expanded
	MemoryMB           int64    // --mem, per node
	WholeMemory        bool     // --mem=0: all of each node's memory
	MemPerCPUMB        int64    // --mem-per-cpu
	TmpMB              int64    // --tmp
	GRES               []selectnodes.GRESRequest
	GPUs               int // --gpus: the job's total
	GPUType            string
	GPUsPerNode        int
	Exclusive          bool
	ExclusiveMode      string // "", "user" or "mcs"
	Oversubscribe      bool
	Contiguous         bool
	Switches           int           // --switches=N
	SwitchesWait       time.Duration // --switches=N@time
	// TimeLimit is -t: slurmconf.Unlimited for INFINITE, UNLIMITED, -1
	// or 0 (no limit imposed), which Request keeps (above any partition's
	// finite MaxTime, as Slurm holds such a job) and Spec submits as
	// queue.MaxTimeLimit.
	TimeLimit    time.Duration
	TimeMin      time.Duration // --time-min
	Begin        string        // --begin, as written; see BeginAt
	Account, QOS string
	User, Group  string // --uid, --gid
	Dependency   string
	Requeue      bool
	Nice         int64
	Hold         bool
	// Layout asks how tasks sit on sockets, cores and threads (--hint,
	// --ntasks-per-socket, --ntasks-per-core, --threads-per-core).
	Layout Layout
}

// Flag is an option of the caller's own (a CLI's --conf, --json), parsed
// by the same rules beside sbatch's. Value says whether it takes a value;
// Optional that the value may be left out (--backfill or --backfill=easy;
// an optional value is never a separate word, as --exclusive[=user]). Set
// receives the value ("" for a flag without one or an optional value left
// out).
type Flag struct {
	Short    byte
	Long     string
	Value    bool
	Optional bool
	Set      func(value string) error
}

// Parse reads args (without the program name). Operands — words that are
// not options or their values, such as a batch script — are an error; a
// caller that wants them uses ParseOperands.
func Parse(args []string, extra ...Flag) (*Options, error) {
	o, operands, err := ParseOperands(args, extra...)
	if err == nil && len(operands) > 0 {
		err = &Error{Arg: slices.Index(args, operands[0]), Text: operands[0], Msg: "unexpected argument (no batch script is read)"}
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// ParseOperands is Parse that returns the operands instead of refusing
// them.
func ParseOperands(args []string, extra ...Flag) (*Options, []string, error) {
	if len(args) > MaxArgs {
		return nil, nil, &Error{Arg: MaxArgs, Msg: "more than MaxArgs arguments"}
	}
	for i, a := range args {
		if len(a) > MaxArgBytes {
			return nil, nil, &Error{Arg: i, Text: a[:32] + "…", Offset: MaxArgBytes, Msg: "argument longer than MaxArgBytes"}
		}
	}
	table := optionTable()
	found, operands, err := getopt(append(table, flagOptions(extra)...), len(table), args)
	if err != nil {
		return nil, nil, err
	}
	o := &Options{}
	for _, occ := range found {
		if err := occ.opt.set(o, occ.value); err != nil {
			return nil, nil, &Error{Arg: occ.arg, Text: args[occ.arg], Offset: occ.off, Msg: err.Error(), own: occ.own}
		}
	}
	if err := exclusiveOptions(found, args); err != nil {
		return nil, nil, err
	}
	if err := gpuType(o, found, args); err != nil {
		return nil, nil, err
	}
	return o, operands, nil
}

// gpuType sets o.GPUType from the last --gpus and the last
// --gpus-per-node: a type given to one holds for both (--gpus-per-node=
// a100:2 --gpus=4 asks for A100s), and two different types are refused,
// naming the later option.
func gpuType(o *Options, found []occurrence, args []string) error {
	var last [2]string // the type of --gpus, of --gpus-per-node
	var at occurrence
	for _, occ := range found {
		i := slices.Index([]string{"gpus", "gpus-per-node"}, occ.opt.long)
		if occ.own || i < 0 {
			continue
		}
		typ, _, typed := strings.Cut(occ.value, ":")
		if !typed {
			typ = ""
		}
		last[i], at = typ, occ
	}
	if last[0] != "" && last[1] != "" && last[0] != last[1] {
		return &Error{Arg: at.arg, Text: args[at.arg], Offset: at.off,
			Msg: "--gpus asks for GPU type " + last[0] + " and --gpus-per-node for " + last[1]}
	}
	o.GPUType = cmp.Or(last[0], last[1])
	return nil
}

// exclusiveOptions refuses options sbatch refuses together: --mem and
// --mem-per-cpu ("mutually exclusive"), naming the later one.
func exclusiveOptions(found []occurrence, args []string) error {
	first := ""
	for _, occ := range found {
		name := occ.opt.long
		if occ.own || (name != "mem" && name != "mem-per-cpu") {
			continue
		}
		if first != "" && first != name {
			return &Error{Arg: occ.arg, Text: args[occ.arg], Offset: occ.off,
				Msg: "--mem and --mem-per-cpu are mutually exclusive (--" + first + " is given too)"}
		}
		first = name
	}
	return nil
}

// ParseFlags reads args against the caller's flags only, by the same
// POSIX rules (-x, -xVALUE, -x VALUE, --name=VALUE, --name VALUE,
// clustered short flags, "--"), and returns the operands in order.
func ParseFlags(args []string, flags ...Flag) ([]string, error) {
	if len(args) > MaxArgs {
		return nil, &Error{Arg: MaxArgs, Msg: "more than MaxArgs arguments"}
	}
	found, operands, err := getopt(flagOptions(flags), 0, args)
	if err != nil {
		return nil, err
	}
	for _, occ := range found {
		if err := occ.opt.set(nil, occ.value); err != nil {
			return nil, &Error{Arg: occ.arg, Text: args[occ.arg], Offset: occ.off, Msg: err.Error(), own: true}
		}
	}
	return operands, nil
}

// flagOptions turns a caller's flags into option table entries.
func flagOptions(flags []Flag) []option {
	table := make([]option, 0, len(flags))
	for _, f := range flags {
		mode := noArg
		switch {
		case f.Optional:
			mode = optionalArg
		case f.Value:
			mode = requiredArg
		}
		set := func(_ *Options, v string) error { return f.Set(v) }
		if f.Set == nil { // the caller's Flag lacks its Set: say so where it is used
			set = func(*Options, string) error { return errors.New("this flag has no Set function to take it") }
		}
		table = append(table, option{short: f.Short, long: f.Long, mode: mode, set: set})
	}
	return table
}
