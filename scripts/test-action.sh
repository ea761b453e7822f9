#!/usr/bin/env bash
# Runs the GitHub Action's script (scripts/action.sh) end to end on
# testdata/example, with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY pointing at
# temp files, and checks the summary, the annotations, the outputs and the
# SARIF. .ci/run calls it; usage: scripts/test-action.sh [KPACK_LINT_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin="${1:-}"
if [ -z "$bin" ]; then
  bin="$tmp/kpack-lint"
  go build -o "$bin" ./cmd/kpack-lint
fi
fail() { echo "test-action: $*" >&2; exit 1; }

export KPACK_LINT="$bin" GITHUB_OUTPUT="$tmp/output" GITHUB_STEP_SUMMARY="$tmp/summary.md"
echo "# earlier step" > "$GITHUB_STEP_SUMMARY"
INPUT_PATHS="testdata/example" INPUT_POLICY=policies.yaml INPUT_VARIANT=asan INPUT_SARIF_FILE="$tmp/kpack-lint.sarif" \
  bash scripts/action.sh > "$tmp/stdout" || fail "action.sh exited $?"

grep -qx 'errors=6' "$GITHUB_OUTPUT" || fail "errors output: $(cat "$GITHUB_OUTPUT")"
grep -qx 'warnings=3' "$GITHUB_OUTPUT" || fail "warnings output: $(cat "$GITHUB_OUTPUT")"
grep -qx "sarif-file=$tmp/kpack-lint.sarif" "$GITHUB_OUTPUT" || fail "sarif-file output"
grep -qx 'exit-code=1' "$GITHUB_OUTPUT" || fail "exit-code output"
[ "$(grep -c '^::error file=' "$tmp/stdout")" -eq 6 ] || fail "want 6 error annotations: $(cat "$tmp/stdout")"
[ "$(grep -c '^::warning file=bin/rocfft-test,title=KPL002 legacy-loader-shadowing::' "$tmp/stdout")" -eq 3 ] || fail "want 3 warning annotations"
grep -q '^9 findings: 6 errors, 3 warnings, 0 notes$' "$tmp/stdout" || fail "no text report in the log"
head -1 "$GITHUB_STEP_SUMMARY" | grep -qx '# earlier step' || fail "the job summary was overwritten, not appended"
grep -q '^## ❌ kpack-lint: 9 findings' "$GITHUB_STEP_SUMMARY" || fail "job summary heading"
grep -q '^| `fft_test` | ' "$GITHUB_STEP_SUMMARY" || fail "job summary matrix"
grep -q 'kpack-lint explain --policy policies.yaml --variant asan' "$GITHUB_STEP_SUMMARY" || fail "job summary explain command"
grep -q '"version": "2.1.0"' "$tmp/kpack-lint.sarif" || fail "no SARIF written"
if [ -x ../shared/tools/sarif-validate ] && command -v npm >/dev/null; then
  ../shared/tools/sarif-validate "$tmp/kpack-lint.sarif"
else
  echo "test-action: SARIF validation skipped (needs ../shared/tools/sarif-validate and npm)"
fi

# A clean run: no annotations of errors, exit-code 0.
: > "$GITHUB_OUTPUT"
INPUT_PATHS="testdata/example" INPUT_POLICY=policies.yaml INPUT_VARIANT=asan INPUT_FAIL_ON=none INPUT_SARIF_FILE="$tmp/k.sarif" \
  bash scripts/action.sh > "$tmp/stdout2" || fail "fail-on none: exit $?"
grep -qx 'exit-code=0' "$GITHUB_OUTPUT" || fail "fail-on none: exit-code output"

# action_fails OUT ENV...: runs the script with the environment changed
# by ENV (env(1) arguments) and requires exit 2, the output in OUT.
action_fails() {
  local out="$1" rc
  shift
  set +e
  env "$@" bash scripts/action.sh > "$out" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$*: exit $rc, want 2: $(cat "$out")"
}

# A run that cannot check (no such input) fails the step with exit 2.
action_fails "$tmp/stdout3" INPUT_PATHS="testdata/does-not-exist"
grep -q '^::error title=kpack-lint::' "$tmp/stdout3" || fail "missing input: no error annotation"

# paths are shell globs: a pattern expands, one that matches nothing is
# exit 2 naming it.
: > "$GITHUB_OUTPUT"
INPUT_PATHS="testdata/exam*" INPUT_POLICY=policies.yaml INPUT_VARIANT=asan INPUT_FAIL_ON=none INPUT_SARIF_FILE="$tmp/g.sarif" \
  bash scripts/action.sh > "$tmp/stdout4" || fail "glob: exit $?"
grep -q '^kpack-lint .*: checked example with' "$tmp/stdout4" || fail "glob: testdata/exam* did not expand to testdata/example"
action_fails "$tmp/stdout5" INPUT_PATHS="testdata/example dist/*.whl"
grep -q '^::error title=kpack-lint::paths: dist/\*.whl matches no file$' "$tmp/stdout5" || fail "unmatched glob: $(cat "$tmp/stdout5")"

# Without GITHUB_OUTPUT the script cannot report: exit 2, as its header says.
action_fails "$tmp/stdout6" -u GITHUB_OUTPUT INPUT_PATHS=testdata/example
grep -q 'GITHUB_OUTPUT is not set' "$tmp/stdout6" || fail "no GITHUB_OUTPUT: $(cat "$tmp/stdout6")"
echo "test-action: ok"
