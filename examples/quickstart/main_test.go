package main

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuickstart(t *testing.T) {
	out := capture(t, main)
	assert.Equal(t, "started job 1 on n[1-6]\nstarted job 3 on n[7-8]\njob 2 reserved for 10:00\n", out)
}

func capture(t *testing.T, f func()) string {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	f()
	os.Stdout = old
	require.NoError(t, w.Close())
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(data)
}
