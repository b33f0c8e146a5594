package sbatch

import "strings"

// argMode says whether an option takes a value.
type argMode uint8

const (
	noArg       argMode = iota
	requiredArg         // -N3, -N 3, --nodes=3, --nodes 3
	optionalArg         // --exclusive or --exclusive=user (never a separate word)
)

// option is one entry of an option table.
type option struct {
	short byte // 0 for none
	long  string
	mode  argMode
	set   func(o *Options, v string) error
}

// occurrence is an option found on the command line.
type occurrence struct {
	opt   *option
	value string
	has   bool // a value was given (optionalArg)
	arg   int  // index of the argument holding the value (or the option)
	off   int  // offset of the value in it
	own   bool // a caller's Flag, not an sbatch option
}

// getopt walks args in POSIX and GNU style against table: clustered
// short flags (-sN3), "--" ending the options, and operands (words not
// starting with '-') returned in order. The entries from table[own] on
// are the caller's flags: their errors do not say "sbatch:".
func getopt(table []option, own int, args []string) ([]occurrence, []string, error) {
	var found []occurrence
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return found, append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			occ, next, err := longOption(table, own, args, i)
			if err != nil {
				return nil, nil, err
			}
			found, i = append(found, occ), next
		case len(a) > 1 && a[0] == '-':
			occs, next, err := shortOptions(table, own, args, i)
			if err != nil {
				return nil, nil, err
			}
			found, i = append(found, occs...), next
		default:
			operands = append(operands, a)
		}
	}
	return found, operands, nil
}

func longOption(table []option, own int, args []string, i int) (occurrence, int, error) {
	a := args[i]
	name, value, hasValue := strings.Cut(a[2:], "=")
	k := lookupLong(table, name)
	if k < 0 {
		return occurrence{}, i, &Error{Arg: i, Text: a, Offset: 2, Msg: "unknown option --" + name, own: own == 0}
	}
	opt := &table[k]
	occ := occurrence{opt: opt, arg: i, off: len(name) + 3, value: value, has: hasValue, own: k >= own}
	switch {
	case opt.mode == noArg && hasValue:
		return occ, i, &Error{Arg: i, Text: a, Offset: len(name) + 2, Msg: "--" + name + " takes no value", own: occ.own}
	case opt.mode == requiredArg && !hasValue:
		if i+1 >= len(args) {
			return occ, i, &Error{Arg: i, Text: a, Offset: len(a), Msg: "--" + name + " needs a value", own: occ.own}
		}
		occ.value, occ.has, occ.arg, occ.off = args[i+1], true, i+1, 0
		return occ, i + 1, nil
	}
	return occ, i, nil
}

func shortOptions(table []option, own int, args []string, i int) ([]occurrence, int, error) {
	a := args[i]
	var out []occurrence
	for k := 1; k < len(a); k++ {
		at := lookupShort(table, a[k])
		if at < 0 {
			return nil, i, &Error{Arg: i, Text: a, Offset: k, Msg: "unknown option -" + string(a[k]), own: own == 0}
		}
		opt, mine := &table[at], at >= own
		if opt.mode == noArg {
			out = append(out, occurrence{opt: opt, arg: i, off: k, own: mine})
			continue
		}
		if k+1 < len(a) { // the rest of the word is the value: -N3
			v := strings.TrimPrefix(a[k+1:], "=")
			return append(out, occurrence{opt: opt, value: v, has: true, arg: i, off: len(a) - len(v), own: mine}), i, nil
		}
		if opt.mode == optionalArg {
			return append(out, occurrence{opt: opt, arg: i, off: k, own: mine}), i, nil
		}
		if i+1 >= len(args) {
			return nil, i, &Error{Arg: i, Text: a, Offset: len(a), Msg: "-" + string(a[k]) + " needs a value", own: mine}
		}
		return append(out, occurrence{opt: opt, value: args[i+1], has: true, arg: i + 1, own: mine}), i + 1, nil
	}
	return out, i, nil
}

// lookupLong is the index of the option called name, -1 for none.
func lookupLong(table []option, name string) int {
	for k := range table {
		if table[k].long == name {
			return k
		}
	}
	return -1
}

// lookupShort is the index of the option spelled -c, -1 for none.
func lookupShort(table []option, c byte) int {
	for k := range table {
		if table[k].short == c {
			return k
		}
	}
	return -1
}
