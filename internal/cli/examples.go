package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// examples are the commands every --help ends with, per command ("" for
// kpack-lint --help): each runs from a clone of the repository.
var examples = map[string][]string{
	"": {
		"kpack-lint check --variant asan testdata/example",
		"kpack-lint explain --agent gfx950:sramecc+:xnack+ --loader legacy bin/rocfft-test#0 testdata/scenarios/seed-fft-asan/tree",
		"kpack-lint rules KPL003",
	},
	"check": {
		"kpack-lint check --variant asan testdata/example                  # text on stdout, exit 1 on errors",
		"kpack-lint check dist --variant asan -o kpack-lint.sarif -o html=report.html",
		"kpack-lint check --variant asan --baseline nightly.sarif --new-only dist   # only what is new since the nightly",
		"kpack-lint check --no-policy --target gfx942 --deep dist/*.whl",
		"kpack-lint check --no-policy --target gfx94X-dcgpu testdata/example    # a TheRock family: its processors (kpack-lint targets)",
		"kpack-lint check --shard 1/4 -q -o shard1.sarif dist               # then kpack-lint merge shard*.sarif",
	},
	"explain": {
		"kpack-lint explain --agent gfx950:sramecc+:xnack+ --loader legacy bin/rocfft-test#0 testdata/scenarios/seed-fft-asan/tree",
		"kpack-lint explain --policy policies.yaml --variant asan bin/rocfft-test#0-2 testdata/example",
		"kpack-lint explain --agent gfx942:sramecc+:xnack- --format json lib/librocblas.so.5#0 testdata/example",
	},
	"explain-db": {
		"kpack-lint explain-db --agent gfx90a:sramecc+:xnack- lib/librocblas.so.5 testdata/kerneldb/rocm-systems-7645/tree",
		"kpack-lint explain-db --agent gfx90a:sramecc+:xnack- --cu 104 miopen testdata/kerneldb/miopen/tree",
	},
	"rules": {
		"kpack-lint rules",
		"kpack-lint rules KPL003 group-collision",
	},
	"targets": {
		"kpack-lint targets",
		"kpack-lint targets gfx94X-dcgpu gfx110X-all gfx942 --format json",
	},
	"merge": {
		"kpack-lint merge -o merged.sarif shard1.sarif shard2.sarif",
		"kpack-lint merge --format markdown shard1.json shard2.json >> \"$GITHUB_STEP_SUMMARY\"",
	},
	"policy-diff": {
		"git show \"$BASE_SHA:policies.yaml\" > base.yaml; kpack-lint policy-diff --base-name policies.yaml@base base.yaml policies.yaml",
		"kpack-lint policy-diff --format markdown --allow-missing base.yaml policies.yaml >> \"$GITHUB_STEP_SUMMARY\"",
	},
	"completion": {
		"source <(kpack-lint completion bash)",
		"kpack-lint completion fish > ~/.config/fish/completions/kpack-lint.fish",
	},
	"version": {
		"kpack-lint version",
	},
}

// withExamples ends a help text with its examples.
func withExamples(desc string, ex []string) string {
	if len(ex) == 0 {
		return desc
	}
	s := strings.TrimRight(desc, "\n")
	if s != "" {
		s += "\n\n"
	}
	return s + "Examples:\n  " + strings.Join(ex, "\n  ")
}

// addExamples puts the examples into the app's and every command's help.
func addExamples(app *ucli.App) {
	app.Description = withExamples(app.Description, examples[""])
	for _, c := range app.Commands {
		c.Description = withExamples(c.Description, examples[c.Name])
	}
}
