//go:build !unix

package benchtree_test

import "time"

// cpuTime is not measured here: 0.
func cpuTime() time.Duration { return 0 }
