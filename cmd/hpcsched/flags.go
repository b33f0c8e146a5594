package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/sbatch"
)

// errHelp: -h or --help was given; the command printed its usage to
// stdout and exits 0.
var errHelp = errors.New("help requested")

// flagSet is one command's options. Every command parses with the same
// POSIX/GNU rules sbatch follows (sbatch.ParseFlags): -q, -xVALUE, -x VALUE,
// --name=VALUE, --name VALUE, clustered short flags and "--", so a user
// types the same spellings to `hpcsched simulate` as to `hpcsched
// explain` and in a check table. Go's flag package accepts neither
// clustered short flags nor -N3; see README "Dependencies" for why this
// is not pflag.
type flagSet struct {
	command  string // "simulate", "alloc serve": names errors and usage
	synopsis string
	flags    []sbatch.Flag
	lines    []usageLine
	help     bool
	// notes follow the flags in the usage text: what no one flag's line
	// can say
	notes string
}

// usageLine is one option in the usage text.
type usageLine struct{ spelling, text string }

func newFlagSet(command, synopsis string) *flagSet {
	s := &flagSet{command: command, synopsis: synopsis}
	s.flags = append(s.flags, sbatch.Flag{Short: 'h', Long: "help", Set: func(string) error { s.help = true; return nil }})
	return s
}

// add registers an option; name is "long" or "x,long" (a short spelling
// too), optionally ending in "=PLACEHOLDER" to name the value in the usage
// instead of value.
func (s *flagSet) add(name, value, text string, f sbatch.Flag) {
	if n, placeholder, ok := strings.Cut(name, "="); ok {
		name, value = n, placeholder
	}
	if short, long, ok := strings.Cut(name, ","); ok {
		f.Short, name = short[0], long
	}
	f.Long = name
	spelling := "    --" + name
	if f.Short != 0 {
		spelling = "-" + string(f.Short) + ", --" + name
	}
	switch {
	case f.Optional:
		spelling += "[=" + value + "]"
	case f.Value:
		spelling += " " + value
	}
	s.flags = append(s.flags, f)
	s.lines = append(s.lines, usageLine{spelling, text})
}

func (s *flagSet) String(p *string, name, def, text string) {
	*p = def
	s.add(name, "VALUE", withDefault(text, def), sbatch.Flag{Value: true, Set: func(v string) error { *p = v; return nil }})
}

func (s *flagSet) Bool(p *bool, name, text string) {
	s.add(name, "", text, sbatch.Flag{Set: func(string) error { *p = true; return nil }})
}

func (s *flagSet) Int(p *int, name string, def int, text string) {
	*p = def
	s.add(name, "N", withDefault(text, strconv.Itoa(def)), sbatch.Flag{Value: true, Set: func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		*p = n
		return nil
	}})
}

func (s *flagSet) Uint64(p *uint64, name string, def uint64, text string) {
	*p = def
	s.add(name, "N", withDefault(text, strconv.FormatUint(def, 10)), sbatch.Flag{Value: true, Set: func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a non-negative integer", v)
		}
		*p = n
		return nil
	}})
}

// Duration reads Go's duration syntax (90s, 1h30m). A zero or negative
// def is not shown as a default: a negative one is a command's "not given"
// mark (auction solve's --time-limit), whose text says what applies.
func (s *flagSet) Duration(p *time.Duration, name string, def time.Duration, text string) {
	*p = def
	shown := ""
	if def > 0 {
		shown = def.String()
	}
	s.add(name, "DURATION", withDefault(text, shown), sbatch.Flag{Value: true, Set: func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration (90s, 1h30m)", v)
		}
		*p = d
		return nil
	}})
}

// Optional is an option whose value may be left out (--backfill,
// --backfill=easy); set receives "" when it is.
func (s *flagSet) Optional(name, value, text string, set func(string) error) {
	s.add(name, value, text, sbatch.Flag{Optional: true, Set: set})
}

// Parse reads args and returns the operands. -h/--help prints the usage to
// stdout and returns errHelp; a bad option is a usage error naming it.
func (s *flagSet) Parse(args []string, stdout io.Writer) ([]string, error) {
	operands, err := sbatch.ParseFlags(args, s.flags...)
	if s.help {
		fmt.Fprint(stdout, s.Usage())
		return nil, errHelp
	}
	if err != nil {
		return nil, usagef("%s: %v", s.command, err)
	}
	return operands, nil
}

// NoOperands is Parse for a command that takes none.
func (s *flagSet) NoOperands(args []string, stdout io.Writer) error {
	operands, err := s.Parse(args, stdout)
	if err == nil && len(operands) > 0 {
		err = usagef("%s: unexpected argument %q", s.command, operands[0])
	}
	return err
}

// Usage is the command's help text.
func (s *flagSet) Usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: hpcsched %s %s\n\nflags:\n", s.command, s.synopsis)
	width := 0
	for _, l := range s.lines {
		width = max(width, len(l.spelling))
	}
	for _, l := range s.lines {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, l.spelling, l.text)
	}
	fmt.Fprintf(&b, "  %-*s  %s\n", width, "-h, --help", "this text")
	if s.notes != "" {
		b.WriteString("\n" + s.notes)
	}
	return b.String()
}

func withDefault(text, def string) string {
	if def == "" || def == "0" {
		return text
	}
	return text + " (default " + def + ")"
}
