package main

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountFeatures(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = old
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, ""+
		"A-only line first  hpcsched     runs on nymfe[73-74]\n"+
		"A-only line first  slurm 22.05  rejected: node_config\n"+
		"A,B line first     hpcsched     runs on nymfe[73-74]\n"+
		"A,B line first     slurm 22.05  runs on nymfe[73-74]\n", string(out))
}
