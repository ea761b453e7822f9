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
#
# INPUT_BASELINE_ARTIFACT names an artifact holding the baseline report:
# the script lists the newest successful runs of the base branch (on
# pull_request events GITHUB_BASE_REF, else the default branch) of the
# workflow INPUT_BASELINE_WORKFLOW (default: this one, from
# GITHUB_WORKFLOW_REF), skipping runs of pull_request events (a fork's
# branch may share the base branch's name), and downloads the artifact of
# the newest one that has it with gh (GH_TOKEN, permission actions: read).
# Without one it says so (log, warning, job summary) and checks without a
# baseline: every finding counts. INPUT_ONLY_NEW_ISSUES=true is that with
# the artifact kpack-lint-baseline by default, and on a branch (not a pull
# request) it also asks action.yml to upload this run's SARIF as that
# artifact (output upload-baseline); such a run of the default branch that
# finds no earlier baseline records the first one and fails on nothing.
set -euo pipefail

bin="${KPACK_LINT:-kpack-lint}"
die() { echo "::error title=kpack-lint::$*"; echo "kpack-lint action: $*" >&2; exit 2; }
[ -n "${GITHUB_OUTPUT:-}" ] || die "GITHUB_OUTPUT is not set (run inside GitHub Actions or point it at a file)"
[ -n "${GITHUB_STEP_SUMMARY:-}" ] || die "GITHUB_STEP_SUMMARY is not set (run inside GitHub Actions or point it at a file)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

sarif="${INPUT_SARIF_FILE:-kpack-lint.sarif}"
fail_on="${INPUT_FAIL_ON:-error}"
baseline="${INPUT_BASELINE:-}"
artifact="${INPUT_BASELINE_ARTIFACT:-}"
only_new="${INPUT_ONLY_NEW_ISSUES:-false}"
case "$only_new" in
  true | false) ;;
  *) die "only-new-issues: want true or false, got $only_new" ;;
esac
[ "$only_new" = true ] && [ -z "$artifact" ] && artifact=kpack-lint-baseline
if [ -n "$artifact" ] && [ -n "$baseline" ]; then
  die "set baseline (a file) or baseline-artifact/only-new-issues (an artifact of an earlier run), not both"
fi
repo="${GITHUB_REPOSITORY:-}"
summary_note="" # a line on the baseline for the job summary
upload=""       # the artifact to upload this run's SARIF as

pr_event() { [ "${GITHUB_EVENT_NAME:-}" = pull_request ] || [ "${GITHUB_EVENT_NAME:-}" = pull_request_target ]; }
default_branch() {
  if [ -n "${DEFAULT_BRANCH:-}" ]; then
    echo "$DEFAULT_BRANCH"
  else
    gh repo view "$repo" --json defaultBranchRef --jq .defaultBranchRef.name
  fi
}
# no_baseline WHY: find_baseline's answer when it has no baseline.
no_baseline() { why="$1"; }
# Runs of pull_request events are skipped: a fork's branch may bear the
# base branch's name.
runs_jq='.[] | select(.event != "pull_request" and .event != "pull_request_target") | .databaseId'

# find_baseline: sets baseline to the report in the newest successful run
# of the base branch that has the artifact; returns 1 when none has it
# (no run, or every download failed) and 2 when gh cannot list the runs,
# with why set to the reason.
find_baseline() {
  local branch workflow ids id dir files=() f name
  command -v gh >/dev/null || { no_baseline "gh is not installed, so artifact $artifact cannot be fetched"; return 2; }
  [ -n "$repo" ] || { no_baseline "GITHUB_REPOSITORY is not set"; return 2; }
  if pr_event && [ -n "${GITHUB_BASE_REF:-}" ]; then
    branch="$GITHUB_BASE_REF"
  else
    branch="$(default_branch)" || { no_baseline "gh cannot tell the default branch of $repo"; return 2; }
  fi
  workflow="${INPUT_BASELINE_WORKFLOW:-}"
  if [ -z "$workflow" ]; then
    workflow="${GITHUB_WORKFLOW_REF%%@*}"
    workflow="${workflow##*/}"
  fi
  [ -n "$workflow" ] || { no_baseline "GITHUB_WORKFLOW_REF is not set: give baseline-workflow"; return 2; }
  echo "kpack-lint action: looking for artifact $artifact in the newest successful runs of $workflow on $branch"
  if ! ids="$(gh run list -R "$repo" --branch "$branch" --workflow "$workflow" --status success --limit 20 --json databaseId,event --jq "$runs_jq")"; then
    no_baseline "gh run list failed for workflow $workflow on branch $branch of $repo (the job needs permission actions: read)"
    return 2
  fi
  [ -n "$ids" ] || { no_baseline "no successful run of workflow $workflow on branch $branch yet"; return 1; }
  for id in $(head -5 <<< "$ids"); do
    dir="${RUNNER_TEMP:-$work}/kpack-lint-baseline-$id"
    if ! gh run download "$id" -R "$repo" -n "$artifact" -D "$dir"; then
      echo "kpack-lint action: run $id of $workflow on $branch: could not download artifact $artifact (expired, or not uploaded by that run); trying an older run"
      continue
    fi
    files=()
    while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -type f \( -name '*.sarif' -o -name '*.json' \) | LC_ALL=C sort)
    if [ "${#files[@]}" -gt 1 ]; then
      name="$(basename "$sarif")"
      for f in "${files[@]}"; do
        [ "$(basename "$f")" = "$name" ] && files=("$f") && break
      done
    fi
    if [ "${#files[@]}" -ne 1 ]; then
      no_baseline "artifact $artifact of run $id holds ${#files[@]} .sarif/.json files, not one (or one named $(basename "$sarif"))"
      return 2
    fi
    baseline="${files[0]}"
    echo "kpack-lint action: baseline: ${baseline#"$dir"/} of artifact $artifact, run $id of $workflow on $branch"
    summary_note="**Baseline:** \`${baseline#"$dir"/}\` of artifact \`$artifact\`, [run $id](${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/$id) of \`$workflow\` on \`$branch\`."
    return 0
  done
  no_baseline "none of the newest successful runs of workflow $workflow on branch $branch has artifact $artifact"
  return 1
}

if [ -n "$artifact" ]; then
  found=0 why=""
  find_baseline || found=$?
  # A branch's own runs keep their report, so pull requests into that
  # branch find it; only the default branch's first run records a baseline
  # without one.
  if [ "$only_new" = true ] && ! pr_event && [[ "${GITHUB_REF:-}" == refs/heads/* ]]; then
    upload="$artifact"
  fi
  if [ "$found" -eq 1 ] && [ -n "$upload" ] && [ "$GITHUB_REF" = "refs/heads/$(default_branch 2>/dev/null || true)" ]; then
    # The first run of the default branch records the baseline.
    fail_on=none
    echo "kpack-lint action: $why: this run's report becomes the first baseline (artifact $artifact) and fails on nothing"
    summary_note="**Baseline:** none yet ($why): this run's report is uploaded as artifact \`$artifact\`, the first baseline, and fails on nothing; later runs and pull requests fail only on new findings."
  elif [ "$found" -ne 0 ]; then
    echo "::warning title=kpack-lint baseline::$why; checking without a baseline (every finding counts)"
    summary_note="**Baseline:** none: $why; checked without a baseline (every finding counts)."
  fi
fi

args=(check --fail-on "$fail_on")
[ -n "${INPUT_POLICY:-}" ] && args+=(--policy "$INPUT_POLICY")
[ -n "${INPUT_VARIANT:-}" ] && args+=(--variant "$INPUT_VARIANT")
[ -n "${INPUT_LOADER:-}" ] && args+=(--loader "$INPUT_LOADER")
[ -n "$baseline" ] && args+=(--baseline "$baseline")
[ -n "${INPUT_WAIVERS:-}" ] && args+=(--waivers "$INPUT_WAIVERS")
[ -n "${INPUT_PATH_PREFIX:-}" ] && args+=(--path-prefix "$INPUT_PATH_PREFIX")
[ "${INPUT_DEEP:-false}" = "true" ] && args+=(--deep)
targets="${INPUT_TARGETS:-}"
for t in ${targets//,/ }; do
  args+=(--target "$t")
done
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
[ -z "$summary_note" ] || printf '\n%s\n' "$summary_note" >> "$GITHUB_STEP_SUMMARY"

count() { # the first "key": N after "summary" in the JSON report
  awk -v key="\"$1\":" '/^  "summary": \{/ {s=1} s && $1 == key {gsub(/,/, "", $2); print $2; exit}' "$work/report.json"
}
{
  echo "errors=$(count error)"
  echo "warnings=$(count warning)"
  echo "sarif-file=$sarif"
  echo "exit-code=$rc"
  echo "baseline=$baseline"
  echo "upload-baseline=$upload"
} >> "$GITHUB_OUTPUT"
