package main

import (
	"testing"

	"github.com/hpcsched/hpcsched/internal/stdout"
	"github.com/stretchr/testify/assert"
)

func TestCountFeatures(t *testing.T) {
	assert.Equal(t, ""+
		"A-only line first  hpcsched     runs on nymfe[73-74]\n"+
		"A-only line first  slurm 22.05  rejected: node_config\n"+
		"A,B line first     hpcsched     runs on nymfe[73-74]\n"+
		"A,B line first     slurm 22.05  runs on nymfe[73-74]\n", stdout.Capture(t, main))
}
