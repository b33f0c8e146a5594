package check

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A table saved by an editor that writes a byte order mark, or CRLF line
// ends, reads as the plain one does.
func TestReadTableEditorForms(t *testing.T) {
	plain := "# conf\tload\trequest\texpected\na.conf\t-\t-N1\tn1\nb.conf\tn1\t-N2\tREJECT:busy\n"
	want, err := ReadTable(strings.NewReader(plain), "t.tsv")
	require.NoError(t, err)
	require.Len(t, want, 2)
	for name, text := range map[string]string{
		"bom":       "\ufeff" + plain,
		"crlf":      strings.ReplaceAll(plain, "\n", "\r\n"),
		"bom, crlf": "\ufeff" + strings.ReplaceAll(plain, "\n", "\r\n"),
	} {
		got, err := ReadTable(strings.NewReader(text), "t.tsv")
		require.NoError(t, err, name)
		for i := range got {
			got[i].Expected = strings.TrimSuffix(got[i].Expected, "\r")
		}
		assert.Equal(t, want, got, name)
	}
	_, err = ReadTable(strings.NewReader("a.conf\t-\t-N1\n\ufeffb.conf\t-\t-N1\tn1\n"), "t.tsv")
	assert.ErrorContains(t, err, "t.tsv:1:", "a mark after the first line is not dropped")
}

// FuzzReadTable: any input gives cases or a *TableError at a position in
// the input, never a panic; cases come in line order with four fields.
func FuzzReadTable(f *testing.F) {
	f.Add("# conf\tload\trequest\texpected\na.conf\t-\t-N1\tn1\n")
	f.Add("\ufeffa.conf\t-\t-N1\tREJECT:busy\r\n")
	f.Add("a.conf\t-\t-N1\n")
	f.Add("\tx\ty\tREJECT\n\n#\n")
	f.Fuzz(func(t *testing.T, in string) {
		cases, err := ReadTable(strings.NewReader(in), "f.tsv")
		if err != nil {
			var te *TableError
			require.True(t, errors.As(err, &te), "%T %v", err, err)
			require.Equal(t, "f.tsv", te.File)
			require.GreaterOrEqual(t, te.Line, 1)
			require.LessOrEqual(t, te.Line, strings.Count(in, "\n")+1)
			require.GreaterOrEqual(t, te.Column, 1)
			return
		}
		last := 0
		for _, c := range cases {
			require.Greater(t, c.Line, last)
			last = c.Line
			require.NotEmpty(t, c.Conf)
			require.NotContains(t, c.Conf+c.Load+c.Request+c.Expected, "\t")
		}
	})
}
