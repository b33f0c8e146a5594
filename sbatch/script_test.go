package sbatch

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/position"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScriptArgs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		args   []string
		lines  []int
	}{
		{"none", "#!/bin/sh\nhostname\n", nil, nil},
		{"empty", "", nil, nil},
		{"the usual", "#!/bin/bash\n#SBATCH -N2\n#SBATCH --time=1:00:00\nsrun x\n",
			[]string{"-N2", "--time=1:00:00"}, []int{2, 3}},
		{"several on a line, a comment after them", "#SBATCH -N 2 --ntasks-per-node=4 # two nodes\n",
			[]string{"-N", "2", "--ntasks-per-node=4"}, []int{1, 1, 1}},
		{"blank lines and comments do not end them", "#!/bin/sh\n\n# set up\n   # indented comment\n#SBATCH -p batch\n",
			[]string{"-p", "batch"}, []int{5, 5}},
		{"the first command ends them", "#SBATCH -N1\necho hi\n#SBATCH -N8\n", []string{"-N1"}, []int{1}},
		{"quotes group and are removed; a quoted # is no comment", `#SBATCH -J "my job" --comment='#1'` + "\n",
			[]string{"-J", "my job", "--comment=#1"}, []int{1, 1, 1}},
		{"a # inside a word is no comment", "#SBATCH --constraint=a#b\n", []string{"--constraint=a#b"}, []int{1}},
		{"CRLF line ends", "#SBATCH -N2\r\n#SBATCH -t 5\r\nrun\r\n", []string{"-N2", "-t", "5"}, []int{1, 2, 2}},
		{"#SBATCH glued to its option is a comment", "#SBATCH-N2\n#SBATCHX -N3\n", nil, nil},
		{"an indented #SBATCH is a comment", "  #SBATCH -N2\n", nil, nil},
		{"variables are not expanded", "#SBATCH -J $NAME\n", []string{"-J", "$NAME"}, []int{1, 1}},
		{"a bare #SBATCH line", "#SBATCH\n#SBATCH -N1\n", []string{"-N1"}, []int{2}},
	} {
		args, lines, err := ScriptArgs(strings.NewReader(tc.script), "job.sh")
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.args, args, tc.name)
		assert.Equal(t, tc.lines, lines, tc.name)
	}
}

func TestScriptArgsErrors(t *testing.T) {
	long := "#SBATCH -J " + strings.Repeat("x", MaxLineBytes) + "\n"
	comments := strings.Repeat("# "+strings.Repeat("c", 1000)+"\n", MaxScriptBytes/1000)
	for _, tc := range []struct {
		name, script, want string
		line               int
	}{
		{"unterminated quote", "#!/bin/sh\n#SBATCH -J 'oops\n", "unterminated ' quote", 2},
		{"heterogeneous job", "#SBATCH -N1\n#SBATCH hetjob\n#SBATCH -N2\n", "heterogeneous jobs are not modelled", 2},
		{"a line past MaxLineBytes", long, "longer than MaxLineBytes", 1},
		{"comments past MaxScriptBytes", comments + "#SBATCH -N1\n", "more than MaxScriptBytes", 4182},
	} {
		_, _, err := ScriptArgs(strings.NewReader(tc.script), "job.sh")
		var pe *position.Error
		require.True(t, errors.As(err, &pe), "%s: %v", tc.name, err)
		assert.ErrorContains(t, err, tc.want, tc.name)
		assert.Equal(t, "job.sh", pe.Pos.File, tc.name)
		assert.Equal(t, tc.line, pe.Pos.Line, tc.name)
	}
	_, _, err := ScriptArgs(nil, "x")
	assert.Error(t, err)
}

// The directives of a script followed by a command line are parsed as
// one: the command line's later options override the script's.
func TestScriptArgsThenCommandLine(t *testing.T) {
	args, _, err := ScriptArgs(strings.NewReader("#SBATCH -N2 -t 10 -p batch\n"), "job.sh")
	require.NoError(t, err)
	o, err := Parse(append(args, "-N4", "-p", "gpu"))
	require.NoError(t, err)
	assert.Equal(t, []string{"gpu"}, o.Partitions)
	req, err := o.Request(o.Partitions[0])
	require.NoError(t, err)
	assert.Equal(t, 4, req.MinNodes)
}

func FuzzScriptArgs(f *testing.F) {
	for _, s := range []string{"#!/bin/sh\n#SBATCH -N2 # x\nrun\n", "#SBATCH -J 'a b' --comment=\"#\"\n", "#SBATCH hetjob\n", "\r\n#SBATCH\t-N1\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		args, lines, err := ScriptArgs(strings.NewReader(script), "f.sh")
		if err != nil {
			var pe *position.Error
			if !errors.As(err, &pe) || pe.Pos.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		if len(args) != len(lines) {
			t.Fatalf("%d args, %d lines", len(args), len(lines))
		}
		for i := 1; i < len(lines); i++ {
			if lines[i] < lines[i-1] {
				t.Fatalf("lines out of order: %v", lines)
			}
		}
		_, _ = Parse(args) // refused or not, never a panic
	})
}
