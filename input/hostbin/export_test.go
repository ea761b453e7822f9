package hostbin

// SetMaxRelocations lowers the relocation record bound for a test and
// returns the function restoring it.
func SetMaxRelocations(n int) func() {
	old := maxRelocations
	maxRelocations = n
	return func() { maxRelocations = old }
}
