package main

import (
	"testing"

	"github.com/hpcsched/hpcsched/internal/stdout"
	"github.com/stretchr/testify/assert"
)

func TestQuickstart(t *testing.T) {
	out := stdout.Capture(t, main)
	assert.Equal(t, "started job 1 on n[1-6]\nstarted job 3 on n[7-8]\njob 2 reserved for 10:00\n", out)
}
