package lint

// Note is what a run tells besides its report, on the side: one of the
// *Note types below. The command line words each with its flags; a
// library never does.
type Note interface{ note() }

// PolicyNote: explain uses a policy it found by itself (Config.PolicyFound),
// whose loader, env: and arch_list apply; without agents given, it loads
// on the Agents agents of its Variant.
type PolicyNote struct {
	Path, Found string
	FromVariant bool
	Variant     string
	Agents      int
}

// AgentNote: explain simulates an agent no device reports (Hint names what
// devices of its processor report), as the runtime's own tests call the
// loader with such names.
type AgentNote struct {
	Agent, Hint string
}

// ForeignAgentNote: check simulates an agent that cannot run code built
// for the target it stands for (Target): that target's device reporting
// another ISA, as under HSA_OVERRIDE_GFX_VERSION, which no such device
// reports by itself.
type ForeignAgentNote struct {
	Agent, Target string
}

// BinariesNote: several host binaries have the kernel name explain loads;
// it uses the first by path.
type BinariesNote struct {
	Name, Using string
	Others      []string
}

// CUsNote: MIOpen's CU-specific databases were not checked for these
// processors, as the policy gives no cu_counts for them.
type CUsNote struct {
	Processors []string
}

// NoTargetsNote: Library ships a kernel database but there are no
// targets to simulate.
type NoTargetsNote struct {
	Library string
}

// BaselineNote is a warning: the baseline checked another matrix
// (Message, also a notification of the report).
type BaselineNote struct {
	Baseline, Message string
}

// MergeBaselineNote: merge computes baseline states itself (gate.Rebase)
// and the shards' baseline (Shards, "" for none) is not its own (Merge,
// "" for none): without --baseline the shards' states are dropped; with
// one for shards checked without, KPL012 was not checked.
type MergeBaselineNote struct {
	Shards, Merge string
}

// MergeWaiversNote: merge applies its own waivers (the policy's and
// --waivers), never a shard's waived state, and the shards' waivers
// (Shards, checked.waivers, "" for none) are not merge's (Merge, ""
// for none).
type MergeWaiversNote struct {
	Shards, Merge string
}

// MergeMatrixNote: the shards' targets (Targets, from TargetSource)
// came from the build (the archives' gfx_arches, or none beside
// machines), which merge does not read, so it could not check them
// against its policy.
type MergeMatrixNote struct {
	TargetSource string
	Targets      []string
}

// StreamedNote: an input's large xz stream (a tar.xz, a .deb's
// data.tar.xz, an rpm's payload) could not be read in place through its
// block index and was decompressed front to back; Why says why and how to
// compress it so that it can be (vfs.Input.Streamed).
type StreamedNote struct {
	Input, Why string
}

func (MergeMatrixNote) note()   {}
func (MergeWaiversNote) note()  {}
func (StreamedNote) note()      {}
func (MergeBaselineNote) note() {}
func (PolicyNote) note()        {}
func (AgentNote) note()         {}
func (ForeignAgentNote) note()  {}
func (BinariesNote) note()      {}
func (CUsNote) note()           {}
func (NoTargetsNote) note()     {}
func (BaselineNote) note()      {}

// tell passes n to c.Note, when set.
func (c *Config) tell(n Note) {
	if c.Note != nil {
		c.Note(n)
	}
}
