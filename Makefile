# kpack-lint: build, test, install, and lint a build's packages.
#   make lint-packages PACKAGES=dist POLICY=policies.yaml VARIANT=asan
# PACKAGES: directories, wheels or tarballs (overlaid in order; default
# dist); POLICY: a policies.yaml (default: found as `kpack-lint check`
# finds it); VARIANT: the policy's build variant (default: the policy's
# release variant, or its only one); FAIL_ON: error (default), warning,
# note, none; KPACK_LINT_FLAGS: any other check flags (e.g. --baseline
# nightly.sarif).

PACKAGES ?= dist
POLICY ?=
VARIANT ?=
FAIL_ON ?= error
KPACK_LINT_FLAGS ?=
GO ?= go
BIN ?= bin/kpack-lint

.PHONY: all build test install lint-packages clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/kpack-lint

test:
	$(GO) test ./...

install:
	$(GO) install ./cmd/kpack-lint

lint-packages: build
	@for p in $(PACKAGES); do [ -e "$$p" ] || { echo "make lint-packages: $$p not found: pass the build to lint, e.g. make lint-packages PACKAGES=path/to/dist (directories, wheels, tarballs)" >&2; exit 2; }; done
	$(BIN) check $(if $(POLICY),--policy $(POLICY)) $(if $(VARIANT),--variant $(VARIANT)) --fail-on $(FAIL_ON) $(KPACK_LINT_FLAGS) $(PACKAGES)

clean:
	rm -rf bin
