package finding

// NewestHIP names the newest modelled HIP release (sim/hip NewestName),
// check's and explain's default --hip.
const NewestHIP = "newest"

// OnMachine is what a finding says about the process a load ran in: the
// machine (its name, "" for a target-matrix agent, which is the only
// device of its process), its HIP release, the devices concerned (HIP
// indexes) and the ISA they report (and the real one, when an override
// changed it), the outcome, the device responsible for it, what the user
// sees at registration and at launch for that release, and the fixes
// users reported. JSON writes its fields in the finding, SARIF as result
// properties.
type OnMachine struct {
	Machine string `json:"machine,omitempty"`
	HIP     string `json:"hipRelease"`
	// Windows is set for a Windows process (a PE binary).
	Windows bool  `json:"windows,omitempty"`
	Devices []int `json:"devices,omitempty"`
	// DeviceISA is the ISA the devices report to the process; RealISA
	// the one they report without the environment, when it differs.
	DeviceISA string `json:"deviceISA,omitempty"`
	RealISA   string `json:"realISA,omitempty"`
	// Outcome is the devices' outcome: "no-code", "failed-by-other",
	// "foreign-code", "aborted", "unsupported", "no-device".
	Outcome string `json:"outcome,omitempty"`
	// OtherDevice is the HIP index of the device that made the module
	// fail or whose code object the devices run; nil when none.
	OtherDevice *int `json:"otherDevice,omitempty"`
	// Registration, Launch and Then are the release's symptom (hip.Symptom):
	// the module load's error, a kernel launch's, later launches'.
	Registration string   `json:"registration,omitempty"`
	Launch       string   `json:"launch,omitempty"`
	Then         string   `json:"then,omitempty"`
	Fixes        []string `json:"fixes,omitempty"`
}

// MachineInfo is one simulated machine as a report states it (what was
// checked): its name, HIP release, KFD CPU nodes, whether its HIP was
// built without kpack, its GPUs in enumeration order (ISA and UUID), its
// environment as KEY=VALUE sorted by key, and per process kind the
// devices HIP shows and what the environment did.
type MachineInfo struct {
	Name     string          `json:"name"`
	HIP      string          `json:"hip"`
	CPUNodes int             `json:"cpuNodes,omitempty"`
	KpackOff bool            `json:"kpackOff,omitempty"`
	Loader   string          `json:"loader"`
	Devices  []MachineDevice `json:"devices"`
	Env      []string        `json:"env,omitempty"`
	Linux    *MachineView    `json:"linux,omitempty"`
	Windows  *MachineView    `json:"windows,omitempty"`
}

// MachineDevice is one GPU of a machine as the machine is defined.
type MachineDevice struct {
	ISA  string `json:"isa"`
	UUID string `json:"uuid,omitempty"`
}

// MachineView is what one process kind (Linux, Windows) of a machine sees:
// the devices in HIP order, what each environment variable did, and
// whether the runtime sees no device at all.
type MachineView struct {
	Devices   []ViewDevice  `json:"devices"`
	Notes     []MachineNote `json:"notes,omitempty"`
	NoRuntime bool          `json:"noRuntime,omitempty"`
}

// ViewDevice is one device a process sees: its HIP index, its place in
// the machine's enumeration, the ISA it reports and its real one, and the
// setting that changed it.
type ViewDevice struct {
	Index    int    `json:"index"`
	Device   int    `json:"device"`
	ISA      string `json:"isa"`
	Real     string `json:"real,omitempty"`
	Override string `json:"override,omitempty"`
}

// MachineNote is what one variable of a machine's environment did.
type MachineNote struct {
	Var  string `json:"var,omitempty"`
	Text string `json:"text"`
}

// MachineVerdict is what one machine's processes made of the build's
// binaries: how many were judged and are clean, how many fail (some
// device does not load its own code) per outcome, and the first
// MaxFailingListed failing ones by input and path, each with the outcome
// of every device that did not load its own code.
type MachineVerdict struct {
	Machine  string `json:"machine"`
	Binaries int    `json:"binaries"`
	Clean    int    `json:"clean"`
	// Outcomes counts the failing binaries per outcome ("no-code": 3); a
	// binary counts once for each outcome its devices have.
	Outcomes map[string]int  `json:"outcomes,omitempty"`
	Failing  []BinaryVerdict `json:"failing,omitempty"`
}

// MaxFailingListed is how many failing binaries a MachineVerdict lists.
const MaxFailingListed = 100

// BinaryVerdict is one binary some device of a machine does not load its
// code from: its location (input and path), and per such device the
// outcome ("no-code", "failed-by-other", ...) and how many of the
// binary's modules it concerns.
type BinaryVerdict struct {
	Input   int             `json:"input"`
	Path    string          `json:"path"`
	Devices []DeviceVerdict `json:"devices"`
}

// DeviceVerdict is one device's outcome from one binary.
type DeviceVerdict struct {
	Device  int    `json:"device"`
	ISA     string `json:"isa"`
	Outcome string `json:"outcome"`
	Modules int    `json:"modules"`
}
