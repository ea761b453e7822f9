//go:build !linux

package main

import "errors"

var errNoCache = errors.New("page-cache control needs Linux (posix_fadvise, mincore)")

func evict(string) error { return errNoCache }

func resident(string, int64) (int64, error) { return 0, errNoCache }
