package main

import (
	"errors"
	"os"
	"slices"

	"github.com/hpcsched/hpcsched/sbatch"
)

// batchScript is the #SBATCH directives explain read from a batch script
// named on its command line: their arguments go before the command line's,
// which override them as sbatch's command line overrides its script.
type batchScript struct {
	path    string
	args    []string
	lines   []int // lines[i] is the script line of args[i]
	operand int   // the script's index on the command line
}

// withScript returns the arguments explain parses: args, or, when they
// name a batch script (explain's one operand), the script's directives
// followed by args without the script's name. A script's own refusals
// name its line; the command line is parsed as a whole afterwards.
func withScript(args []string, flags []sbatch.Flag) ([]string, *batchScript, error) {
	quiet := slices.Clone(flags) // find the operands without setting explain's flags twice
	for i := range quiet {
		quiet[i].Set = func(string) error { return nil }
	}
	_, operands, err := sbatch.ParseOperands(args, quiet...)
	if err != nil || len(operands) == 0 {
		return args, nil, nil // none, or Parse names the error
	}
	if len(operands) > 1 {
		return nil, nil, usagef("explain: one batch script at most, not %d operands (%q, %q...)", len(operands), operands[0], operands[1])
	}
	bs := &batchScript{path: operands[0], operand: slices.Index(args, operands[0])}
	file, err := os.Open(bs.path)
	if err != nil {
		return nil, nil, usagef("explain: batch script: %v", err)
	}
	defer file.Close()
	if bs.args, bs.lines, err = sbatch.ScriptArgs(file, bs.path); err != nil {
		return nil, nil, usagef("explain: %v", err)
	}
	if _, err := sbatch.Parse(bs.args); err != nil { // the script's own options, alone
		return nil, nil, bs.named(err)
	}
	rest := slices.Delete(slices.Clone(args), bs.operand, bs.operand+1)
	return append(slices.Clone(bs.args), rest...), bs, nil
}

// named is a parse error of the combined arguments, naming the script's
// line for one of its options and the command line's own argument
// number for the others.
func (bs *batchScript) named(err error) error {
	var e *sbatch.Error
	if bs == nil || !errors.As(err, &e) || e.Arg < 0 {
		return usagef("explain: %v", err)
	}
	if e.Arg < len(bs.args) {
		return usagef("explain: %s:%d: sbatch: %q: %s", bs.path, bs.lines[e.Arg], e.Text, e.Msg)
	}
	moved := *e
	if moved.Arg -= len(bs.args); moved.Arg >= bs.operand {
		moved.Arg++ // the script's name stood before it
	}
	return usagef("explain: %v", &moved)
}
