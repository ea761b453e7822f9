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
# baseline. INPUT_ONLY_NEW_ISSUES=true is that with the artifact
# kpack-lint-baseline by default, and on a branch (not a pull request) it
# also asks action.yml to upload this run's SARIF as that artifact
# (output upload-baseline).
#
# INPUT_MISSING_BASELINE (warn or fail) says what a run does when the
# baseline is missing: gh listed the base branch's successful runs and
# none has the artifact (the workflow is new: the pull request that adds
# it, the default branch's first run; or the artifact expired). warn
# (the default with only-new-issues) checks and reports every finding
# (annotations, summary, SARIF, outputs) and fails on none of them, as
# --fail-on none: none can be told new; the default branch's such run
# records the first baseline. fail (the default with baseline-artifact
# alone) lets every finding count at fail-on. A baseline that cannot be
# looked for (gh missing, no actions: read permission, an artifact of
# several reports) is not missing but unknown: every finding counts,
# whatever missing-baseline says.
#
# INPUT_POLICY_FROM_BASE=true on a pull request reads the policy (the
# policy input, default policies.yaml, a path in the repository) as of the
# PR's base commit (BASE_SHA, github.event.pull_request.base.sha) with
# `git show`, fetching that commit when the checkout lacks it, passes it as
# --policy, and adds a "Policy changes" section to the job summary
# (kpack-lint policy-diff: what the PR's copy changes against it).
#
# What the pull request controls is data here: file names matched by the
# paths globs, artifact file names, report text. Every line this script
# prints is one line without control characters (clean), never starting
# with "::" unless it is one of its own workflow commands; the text
# report is printed between ::stop-commands:: and a random token, with
# any line that starts with "::" prefixed by a backslash; step outputs
# with a line break use the heredoc form with a random delimiter; the job
# summary puts names in code spans (md_code).
set -euo pipefail

bin="${KPACK_LINT:-kpack-lint}"

# clean TEXT: TEXT on one line, each control character (C0, DEL) shown as
# \xNN, so a name with a newline cannot start a line of its own.
clean() {
  local LC_ALL=C s="$1" out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in
      [[:cntrl:]]) printf -v c '\\x%02x' "'$c" ;;
    esac
    out+="$c"
  done
  printf '%s' "$out"
}
# say TEXT...: a log line of this script (stdout).
say() { printf 'kpack-lint action: %s\n' "$(clean "$*")"; }
# annotate LEVEL TITLE TEXT...: a workflow command of this script, its
# message on one line with % escaped as the runner decodes it.
annotate() {
  local level="$1" title="$2" msg
  shift 2
  msg="$(clean "$*")"
  printf '::%s title=%s::%s\n' "$level" "$title" "${msg//%/%25}"
}
die() { annotate error kpack-lint "$*"; printf 'kpack-lint action: %s\n' "$(clean "$*")" >&2; exit 2; }
# md_code TEXT: TEXT as a Markdown code span (no backtick, one line).
md_code() { local s; s="$(clean "$1")"; printf "\`%s\`" "${s//\`/\'}"; }
# md_text TEXT: TEXT as Markdown text: one line, a backslash before each
# character that can open markup (the set kpack-lint's Markdown report
# escapes, and &), so no emphasis, link, HTML, entity or table cell starts.
md_text() { clean "$1" | LC_ALL=C sed 's/[][\\`*_{}<>()#|!~&]/\\&/g'; }
# random_token: 32 hex digits from /dev/urandom.
random_token() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
# set_output KEY VALUE: a step output; a value with a line break uses the
# heredoc form with a delimiter the value does not hold, so no value can
# add outputs of its own.
set_output() {
  local key="$1" value="$2" delim
  if [[ "$value" != *[$'\n\r']* ]]; then
    printf '%s=%s\n' "$key" "$value" >> "$GITHUB_OUTPUT"
    return
  fi
  delim="ghadelimiter_$(random_token)"
  [[ "$value" != *"$delim"* ]] || die "set_output $key: the value holds the delimiter"
  printf '%s<<%s\n%s\n%s\n' "$key" "$delim" "$value" "$delim" >> "$GITHUB_OUTPUT"
}
# print_untrusted FILE: FILE on stdout with the runner's workflow commands
# stopped (::stop-commands:: with a random token, resumed after), and a
# backslash before any line that starts, after spaces, with "::".
print_untrusted() {
  local token
  token="$(random_token)"
  echo "::stop-commands::$token"
  LC_ALL=C sed 's/^\([[:space:]]*\)::/\1\\::/' "$1"
  echo "::$token::"
}
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
missing="${INPUT_MISSING_BASELINE:-}"
case "$missing" in
  "") if [ "$only_new" = true ]; then missing=warn; else missing=fail; fi ;;
  warn | fail) ;;
  *) die "missing-baseline: want warn or fail, got $missing" ;;
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
  say "looking for artifact $artifact in the newest successful runs of $workflow on $branch"
  if ! ids="$(gh run list -R "$repo" --branch "$branch" --workflow "$workflow" --status success --limit 20 --json databaseId,event --jq "$runs_jq")"; then
    no_baseline "gh run list failed for workflow $workflow on branch $branch of $repo (the job needs permission actions: read)"
    return 2
  fi
  [ -n "$ids" ] || { no_baseline "no successful run of workflow $workflow on branch $branch yet"; return 1; }
  for id in $(head -5 <<< "$ids"); do
    dir="${RUNNER_TEMP:-$work}/kpack-lint-baseline-$id"
    if ! gh run download "$id" -R "$repo" -n "$artifact" -D "$dir"; then
      say "run $id of $workflow on $branch: could not download artifact $artifact (expired, or not uploaded by that run); trying an older run"
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
    say "baseline: ${baseline#"$dir"/} of artifact $artifact, run $id of $workflow on $branch"
    summary_note="**Baseline:** $(md_code "${baseline#"$dir"/}") of artifact $(md_code "$artifact"), [run $id](${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/$id) of $(md_code "$workflow") on $(md_code "$branch")."
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
  first=""
  if [ "$found" -eq 1 ] && [ -n "$upload" ] && [ "$GITHUB_REF" = "refs/heads/$(default_branch 2>/dev/null || true)" ]; then
    first=1 # the first run of the default branch: its report becomes the baseline
  fi
  if [ "$found" -eq 1 ] && [ "$missing" = warn ] && [ -n "$first" ]; then
    fail_on=none
    say "$why: this run's report becomes the first baseline (artifact $artifact) and fails on nothing"
    summary_note="**Baseline:** none yet ($(md_text "$why")): this run's report is uploaded as artifact $(md_code "$artifact"), the first baseline, and fails on nothing; later runs and pull requests fail only on new findings."
  elif [ "$found" -eq 1 ] && [ "$missing" = warn ]; then
    fail_on=none
    annotate warning "kpack-lint baseline" "$why; missing-baseline: warn: every finding is reported and none fails this run (none can be told new until a run of the base branch records the baseline)"
    summary_note="**Baseline:** none yet: $(md_text "$why"). Every finding is reported and none fails this run ($(md_code "missing-baseline: warn")): none can be told new until a run of the base branch records the baseline (artifact $(md_code "$artifact")); set $(md_code "missing-baseline: fail") to fail on every finding instead."
  elif [ "$found" -eq 1 ]; then
    annotate warning "kpack-lint baseline" "$why; missing-baseline: fail: checking without a baseline (every finding counts)"
    summary_note="**Baseline:** none: $(md_text "$why"); checked without a baseline (every finding counts: $(md_code "missing-baseline: fail"))."
    [ -z "$first" ] || say "this run's report becomes the first baseline (artifact $artifact); missing-baseline: fail: its findings count"
  elif [ "$found" -ne 0 ]; then
    annotate warning "kpack-lint baseline" "$why; checking without a baseline (every finding counts)"
    summary_note="**Baseline:** none: $(md_text "$why"); checked without a baseline (every finding counts)."
  fi
fi

# check_sarif_path: sarif-file is written by kpack-lint, which replaces a
# symlink at that name (a pull request can commit one pointing out of the
# workspace) instead of following it; a folder on the way that is a
# symlink is refused, as the report would land outside the workspace: on
# a relative path every folder, on an absolute path the folders below
# $GITHUB_WORKSPACE (the runner's own, such as $RUNNER_TEMP, are trusted).
check_sarif_path() {
  local d="" part rest ws="${GITHUB_WORKSPACE:-}"
  ws="${ws%/}"
  if [ -L "$sarif" ]; then
    annotate warning "kpack-lint" "sarif-file $sarif is a symlink (to $(readlink "$sarif")): it is replaced by the report, and what it points at is left as it was"
  fi
  case "$sarif" in
    /*)
      [ -n "$ws" ] && [[ "$sarif" == "$ws"/* ]] || return 0
      [ ! -L "$ws" ] || return 0 # the runner's own link
      d="$ws"
      rest="$(dirname "${sarif#"$ws"/}")" ;;
    *) rest="$(dirname "$sarif")" ;;
  esac
  [ "$rest" != . ] || return 0
  while [ -n "$rest" ]; do
    part="${rest%%/*}"
    [ "$part" = "$rest" ] && rest="" || rest="${rest#*/}"
    d="${d:+$d/}$part"
    [ ! -L "$d" ] || die "sarif-file $sarif: the folder $d is a symlink (to $(readlink "$d")); write the report to a real folder, e.g. \$RUNNER_TEMP/kpack-lint.sarif"
  done
}
check_sarif_path

# policy_from_base: on a pull request, the policy as of the base commit
# into a temporary file (policy_args, policy_base, summary_policy); the
# pull request's own copy is not used, and base_policy/head_policy are
# what the job summary's "Policy changes" compare.
policy_args=() policy_base="" base_policy="" head_policy="" summary_policy=""
policy_from_base() {
  local sha="${BASE_SHA:-}" path="${INPUT_POLICY:-policies.yaml}" dir
  [[ "$sha" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] ||
    die "policy-from-base: no base commit SHA for this pull request (BASE_SHA, from github.event.pull_request.base.sha, is '$sha')"
  case "$path" in
    /* | *..*) die "policy-from-base: the policy input must be a path inside the repository, relative to the working directory (got $path)" ;;
  esac
  command -v git >/dev/null || die "policy-from-base: git is not installed"
  git rev-parse --git-dir >/dev/null 2>&1 || die "policy-from-base: the working directory is not a git checkout (run actions/checkout before this step)"
  if ! git cat-file -e "$sha^{commit}" 2>/dev/null; then
    say "policy-from-base: the checkout lacks the base commit $sha (a shallow clone); fetching it: git fetch --no-tags --depth=1 origin $sha"
    git fetch -q --no-tags --depth=1 origin "$sha" ||
      die "policy-from-base: cannot fetch the base commit $sha from origin; check out with fetch-depth: 0, or keep the checkout's credentials (persist-credentials) for this step"
  fi
  policy_base="$sha"
  head_policy="$path"
  if ! git cat-file -e "$sha:./$path" 2>/dev/null; then
    annotate warning "kpack-lint policy" "policy-from-base: the base commit $sha has no $path: checking with no policy (the pull request's copy is not used)"
    policy_args=(--no-policy)
    summary_policy="**Policy:** none: the base commit $(md_code "${sha:0:12}") has no $(md_code "$path") (policy-from-base; the pull request's copy is not used)."
    base_policy="$work/base-policy-missing/$(basename "$path")"
    return 0
  fi
  dir="$work/base-policy"
  mkdir -p "$dir"
  base_policy="$dir/$(basename "$path")"
  git show "$sha:./$path" > "$base_policy"
  policy_args=(--policy "$base_policy")
  say "policy: $path as of the base commit $sha (policy-from-base; the pull request's changes to it are not used)"
  summary_policy="**Policy:** $(md_code "$path") as of the base commit $(md_code "${sha:0:12}") (policy-from-base); the pull request's changes to it are listed under Policy changes and not used."
}

# waivers_from_base: with policy-from-base on a pull request, the
# waivers input (a --waivers file) as of the base commit too
# (waivers_args, base_waivers, head_waivers): a pull request that cannot
# change the policy cannot waive through the waiver file either.
waivers_args=() base_waivers="" head_waivers=""
waivers_from_base() {
  local path="$INPUT_WAIVERS" sha="$policy_base" dir
  case "$path" in
    /* | *..*) die "policy-from-base: the waivers input must be a path inside the repository, relative to the working directory (got $path)" ;;
  esac
  head_waivers="$path"
  dir="$work/base-waivers"
  mkdir -p "$dir"
  base_waivers="$dir/$(basename "$path")"
  if ! git cat-file -e "$sha:./$path" 2>/dev/null; then
    annotate warning "kpack-lint policy" "policy-from-base: the base commit $sha has no $path: checking without its waivers (the pull request's copy is not used)"
    base_waivers="$work/base-waivers-missing/$(basename "$path")"
    return 0
  fi
  git show "$sha:./$path" > "$base_waivers"
  waivers_args=(--waivers "$base_waivers")
  say "waivers: $path as of the base commit $sha (policy-from-base; the pull request's changes to it are not used)"
}

case "${INPUT_POLICY_FROM_BASE:-false}" in
  true)
    if pr_event; then
      policy_from_base
      [ -z "${INPUT_WAIVERS:-}" ] || waivers_from_base
    else
      say "policy-from-base: not a pull request (event ${GITHUB_EVENT_NAME:-none}): the policy is read from this commit"
    fi ;;
  false) ;;
  *) die "policy-from-base: want true or false, got ${INPUT_POLICY_FROM_BASE}" ;;
esac
if [ "${#policy_args[@]}" -eq 0 ] && [ -n "${INPUT_POLICY:-}" ]; then
  policy_args=(--policy "$INPUT_POLICY")
fi

args=(check --fail-on "$fail_on")
args+=("${policy_args[@]}")
[ -n "${INPUT_VARIANT:-}" ] && args+=(--variant "$INPUT_VARIANT")
[ -n "${INPUT_LOADER:-}" ] && args+=(--loader "$INPUT_LOADER")
[ -n "$baseline" ] && args+=(--baseline "$baseline")
if [ -n "$head_waivers" ]; then
  args+=("${waivers_args[@]}")
elif [ -n "${INPUT_WAIVERS:-}" ]; then
  args+=(--waivers "$INPUT_WAIVERS")
fi
[ -n "${INPUT_PATH_PREFIX:-}" ] && args+=(--path-prefix "$INPUT_PATH_PREFIX")
[ -n "${INPUT_MAX_WAIVER_DAYS:-}" ] && args+=(--max-waiver-days "$INPUT_MAX_WAIVER_DAYS")
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
# "--": a matched name that starts with "-" is an input, not a flag.
"$bin" "${args[@]}" -- "${paths[@]}"
rc=$?
set -e
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  annotate error kpack-lint "kpack-lint could not check ${paths[*]} (exit $rc); see the log above"
  exit 2
fi
# The text report names files of the build: printed as data.
print_untrusted "$work/report.txt"
# The job summary: the report's summary, the notes on the baseline and
# the policy, and the policy changes, within summary_max bytes (GitHub
# shows at most 1 MiB per step, and nothing of a larger one); the
# report's part is cut first, at a line, saying so.
summary_max=1000000
tail_md="$work/summary-tail.md"
: > "$tail_md"
[ -z "$summary_note" ] || printf '\n%s\n' "$summary_note" >> "$tail_md"
[ -z "$summary_policy" ] || printf '\n%s\n' "$summary_policy" >> "$tail_md"
if [ -n "$policy_base" ]; then
  # What the pull request's copy of the policy changes against the base's
  # (kpack-lint escapes every string of the policies for Markdown and
  # caps the section).
  printf '\n' >> "$tail_md"
  diff_waivers=()
  if [ -n "$head_waivers" ]; then
    diff_waivers=(--base-waivers "$base_waivers" --base-waivers-name "$head_waivers@${policy_base:0:12}" --head-waivers "$head_waivers" --head-waivers-name "$head_waivers")
  fi
  if ! "$bin" policy-diff --format markdown --allow-missing --base-name "$head_policy@${policy_base:0:12}" --head-name "$head_policy" \
    "${diff_waivers[@]}" -- "$base_policy" "$head_policy" >> "$tail_md"; then
    annotate warning "kpack-lint policy" "policy-diff: the pull request's $head_policy does not load (see the log above); the check used the base commit's"
    printf '### Policy changes\n\nThe pull request'"'"'s %s does not load (see the log); the check used the base commit'"'"'s.\n' "$(md_code "$head_policy")" >> "$tail_md"
  fi
fi
room=$((summary_max - $(wc -c < "$tail_md") - 300))
if [ "$(wc -c < "$work/summary.md")" -gt "$room" ]; then
  head -c "$room" "$work/summary.md" | sed '$d' >> "$GITHUB_STEP_SUMMARY"
  printf '\n... the report'"'"'s summary is cut here to keep the job summary under %d bytes (GitHub shows at most 1 MiB); the full report is in the log above and in %s.\n' \
    "$summary_max" "$(md_code "$(basename "$sarif")")" >> "$GITHUB_STEP_SUMMARY"
else
  cat "$work/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
cat "$tail_md" >> "$GITHUB_STEP_SUMMARY"

# count KEY [INNER]: the number summary.KEY (summary.KEY.INNER) of the
# JSON report (2-space indented: summary's keys at 4 spaces, an inner
# object's at 6).
count() {
  awk -v key="\"$1\":" -v inner="${2:+\"$2\":}" '
    /^  "summary": \{/ { s = 1; next }
    !s { next }
    /^  [^ ]/ { exit }
    in_key && /^    [^ ]/ { exit }
    in_key && $1 == inner { gsub(/,/, "", $2); print $2; exit }
    /^    "/ && $1 == key { if (inner == "") { gsub(/,/, "", $2); print $2; exit } in_key = 1 }' "$work/report.json"
}
set_output errors "$(count error)"
set_output warnings "$(count warning)"
set_output new-errors "$(count gating error)"
set_output new-warnings "$(count gating warning)"
set_output failing "$(count failing)"
set_output sarif-file "$sarif"
set_output exit-code "$rc"
set_output baseline "$baseline"
set_output upload-baseline "$upload"
set_output policy-base "$policy_base"
