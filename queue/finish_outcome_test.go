package queue

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFinishRefusesAnUnknownOutcomeKind: an Outcome.Kind beyond the
// constants is refused and changes nothing (no event, no end, the job
// still running), where it used to end the job as Complete and hand the
// unknown kind to every ReleasePlugin.
func TestFinishRefusesAnUnknownOutcomeKind(t *testing.T) {
	for _, kind := range []OutcomeKind{NodeFailure + 1, 200, 255} {
		s := simple(t)
		id := submit(t, s, nodes(1, time.Hour), at(0))
		s.Schedule(at(0))
		require.Equal(t, Running, state(t, s, id))
		var rec recorder
		s.Subscribe(rec.on)
		var before, after bytes.Buffer
		require.NoError(t, s.Snapshot(&before))
		err := s.Finish(id, Outcome{Kind: kind}, at(10))
		assert.ErrorIs(t, err, ErrInvalidSpec, "kind %d", kind)
		require.NoError(t, s.Snapshot(&after))
		assert.Equal(t, before.String(), after.String(), "kind %d", kind)
		assert.Empty(t, rec.events, "kind %d", kind)
		require.NoError(t, s.Finish(id, Outcome{Kind: Failure, ExitCode: 2}, at(10)))
		assert.Equal(t, Failed, state(t, s, id))
	}
}
