//go:build !unix

package fsutil

import "errors"

// oNoFollow: this system's open has no such flag.
const oNoFollow = 0

// oNonBlock: this system's open has no such flag.
const oNonBlock = 0

// errNoReader: never returned on this system.
var errNoReader = errors.New("no reader")
