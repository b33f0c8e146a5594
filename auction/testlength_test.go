package auction

import "testing"

// testLength is a loop's length: short under -short (make test), full
// otherwise (make test-long).
func testLength(short, full int) int {
	if testing.Short() {
		return short
	}
	return full
}
