package main

import (
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/require"
)

func TestReplay(t *testing.T) {
	dir := shareddata.Require(t, "traces")
	require.NoError(t, replay(filepath.Join(dir, "KTH-SP2-1996-2.1-cln.swf"), []string{"500"}))
	require.Error(t, replay(filepath.Join(dir, "missing.swf"), nil))
}
