#!/usr/bin/env bash
# The kpack-lint GitHub Action's step (action.yml): runs `kpack-lint check`
# once, writing SARIF, the job summary ($GITHUB_STEP_SUMMARY), workflow
# annotations (stdout) and the step outputs ($GITHUB_OUTPUT). The logic
# lives in kpack-lint's --format github and --format markdown; this script
# only maps the action's inputs to flags. It always exits 0 when the check
# ran (the outputs carry exit-code, so the SARIF upload still happens) and 2
# when it could not run.
#
# Inputs come as environment variables (INPUT_PATHS, INPUT_POLICY, ...);
# KPACK_LINT names the binary (default: kpack-lint on PATH). INPUT_PATHS
# holds paths or shell glob patterns (dist/*.whl), separated by spaces or
# newlines; a pattern that matches nothing is an error naming it.
set -euo pipefail

bin="${KPACK_LINT:-kpack-lint}"
die() { echo "::error title=kpack-lint::$*"; echo "kpack-lint action: $*" >&2; exit 2; }
[ -n "${GITHUB_OUTPUT:-}" ] || die "GITHUB_OUTPUT is not set (run inside GitHub Actions or point it at a file)"
[ -n "${GITHUB_STEP_SUMMARY:-}" ] || die "GITHUB_STEP_SUMMARY is not set (run inside GitHub Actions or point it at a file)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

args=(check --fail-on "${INPUT_FAIL_ON:-error}")
[ -n "${INPUT_POLICY:-}" ] && args+=(--policy "$INPUT_POLICY")
[ -n "${INPUT_VARIANT:-}" ] && args+=(--variant "$INPUT_VARIANT")
[ -n "${INPUT_LOADER:-}" ] && args+=(--loader "$INPUT_LOADER")
[ -n "${INPUT_BASELINE:-}" ] && args+=(--baseline "$INPUT_BASELINE")
[ -n "${INPUT_WAIVERS:-}" ] && args+=(--waivers "$INPUT_WAIVERS")
[ -n "${INPUT_PATH_PREFIX:-}" ] && args+=(--path-prefix "$INPUT_PATH_PREFIX")
[ "${INPUT_DEEP:-false}" = "true" ] && args+=(--deep)
targets="${INPUT_TARGETS:-}"
for t in ${targets//,/ }; do
  args+=(--target "$t")
done
sarif="${INPUT_SARIF_FILE:-kpack-lint.sarif}"
args+=(-o "sarif=$sarif" -o "json=$work/report.json" -o "markdown=$work/summary.md" -o "text=$work/report.txt" -o "github=-")
# Expand each word as a shell glob (sorted, as bash does), without
# word-splitting the matches: a wheel name with spaces stays one input.
read -r -a words <<< "$(printf '%s' "${INPUT_PATHS:-dist}" | tr '\n' ' ')"
[ "${#words[@]}" -gt 0 ] || die "the paths input is empty"
paths=()
shopt -s nullglob
for w in "${words[@]}"; do
  if [[ "$w" == *[*?[]* ]]; then
    # shellcheck disable=SC2206 # the glob is meant to expand here
    matches=($w)
    [ "${#matches[@]}" -gt 0 ] || die "paths: $w matches no file"
    paths+=("${matches[@]}")
  else
    paths+=("$w")
  fi
done
shopt -u nullglob

set +e
"$bin" "${args[@]}" "${paths[@]}"
rc=$?
set -e
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  echo "::error title=kpack-lint::kpack-lint could not check ${paths[*]} (exit $rc); see the log above"
  exit 2
fi
cat "$work/report.txt"
cat "$work/summary.md" >> "$GITHUB_STEP_SUMMARY"

count() { # the first "key": N after "summary" in the JSON report
  awk -v key="\"$1\":" '/^  "summary": \{/ {s=1} s && $1 == key {gsub(/,/, "", $2); print $2; exit}' "$work/report.json"
}
{
  echo "errors=$(count error)"
  echo "warnings=$(count warning)"
  echo "sarif-file=$sarif"
  echo "exit-code=$rc"
} >> "$GITHUB_OUTPUT"
