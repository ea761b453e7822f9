#!/usr/bin/env bash
# Runs the GitHub Action's scripts end to end: scripts/action.sh on
# testdata/example, with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY pointing at
# temp files (the summary, the annotations, the outputs, the SARIF), its
# baseline-artifact download against a stub gh (found, not found, download
# failures), and scripts/action-install.sh (release download and checksum,
# moving tags, source builds with the runner's go, GOTOOLCHAIN or a private
# toolchain) against stubs of gh and go and a file:// toolchain site. The
# stubs answer the expected commands only and fail on any other.
# .ci/run calls it; usage: scripts/test-action.sh [KPACK_LINT_BINARY], or
# scripts/test-action.sh --release DIST TAG (below).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-action: $*" >&2; exit 1; }

# The stub answers, from the folder $STUB_GH, the commands the scripts
# send: run list (the run IDs in $STUB_GH/runs; no such file: gh fails),
# run download (the folder $STUB_GH/artifacts/ID/NAME), release list
# ($STUB_GH/tags), release download ($STUB_GH/releases/TAG/) and repo view;
# any other command line is logged to $STUB_GH/unexpected and fails.
stubs="$tmp/stubs"
mkdir -p "$stubs"
cat > "$stubs/gh" <<'STUB'
#!/usr/bin/env bash
set -u
echo "gh $*" >> "$STUB_GH/calls"
unexpected() { echo "gh $*" >> "$STUB_GH/unexpected"; echo "stub gh: unexpected command: gh $*" >&2; exit 64; }
runs_jq='.[] | select(.event != "pull_request" and .event != "pull_request_target") | .databaseId'
[ -n "${GH_TOKEN:-}" ] || { echo "stub gh: GH_TOKEN is not set" >&2; exit 4; }
case "$1 ${2:-}" in
  "run list")
    [ "$*" = "run list -R $STUB_REPO --branch $STUB_BRANCH --workflow $STUB_WORKFLOW --status success --limit 20 --json databaseId,event --jq $runs_jq" ] || unexpected "$@"
    [ -f "$STUB_GH/runs" ] || { echo "HTTP 403: Resource not accessible by integration" >&2; exit 1; }
    cat "$STUB_GH/runs" ;;
  "run download")
    [ $# -eq 9 ] && [ "$4 $5 $6 $8" = "-R $STUB_REPO -n -D" ] || unexpected "$@"
    [ -d "$STUB_GH/artifacts/$3/$7" ] || { echo "no artifact matches any of the names or patterns provided" >&2; exit 1; }
    mkdir -p "$9" && cp -R "$STUB_GH/artifacts/$3/$7/." "$9/" ;;
  "release list")
    [ "$*" = "release list -R $STUB_REPO --exclude-drafts --exclude-pre-releases --limit 100 --json tagName --jq .[].tagName" ] || unexpected "$@"
    cat "$STUB_GH/tags" ;;
  "release download")
    [ $# -eq 11 ] && [ "$4 $5 $6 $8 $9 ${10}" = "-R $STUB_REPO -p -p checksums.txt -D" ] || unexpected "$@"
    [ -d "$STUB_GH/releases/$3" ] || { echo "release not found" >&2; exit 1; }
    mkdir -p "${11}"
    for f in "$7" checksums.txt; do
      [ -f "$STUB_GH/releases/$3/$f" ] || { echo "no assets match the file pattern" >&2; exit 1; }
      cp "$STUB_GH/releases/$3/$f" "${11}/"
    done ;;
  "repo view")
    [ "$*" = "repo view $STUB_REPO --json defaultBranchRef --jq .defaultBranchRef.name" ] || unexpected "$@"
    echo main ;;
  *) unexpected "$@" ;;
esac
STUB
chmod +x "$stubs/gh"

# install NAME [VAR=VALUE...]: runs action-install.sh as on a linux/amd64
# runner with the stub gh first on PATH; log in $tmp/NAME.log, outputs in
# $tmp/NAME.output, runner temp $tmp/NAME.temp. install_fails: wants exit 2.
install() {
  local name="$1"
  shift
  mkdir -p "$tmp/$name.temp"
  : > "$tmp/$name.output"
  env PATH="$stubs:$PATH" GH_TOKEN=stub-token RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$tmp/$name.temp" \
    GITHUB_OUTPUT="$tmp/$name.output" GITHUB_ACTION_PATH="$PWD" ACTION_REPOSITORY=rocm-tools/kpack-lint "$@" \
    bash scripts/action-install.sh > "$tmp/$name.log" 2>&1
}
installs() { install "$@" || fail "$1: action-install.sh exited $?: $(cat "$tmp/$1.log")"; }
install_fails() {
  local rc=0
  install "$@" || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, want 2: $(cat "$tmp/$1.log")"
}
log_has() { grep -qF -- "$2" "$tmp/$1.log" || fail "$1: the log lacks '$2': $(cat "$tmp/$1.log")"; }
binary_says() { # NAME VERSION: the installed binary is the one of VERSION
  grep -qx "bin=$tmp/$1.temp/kpack-lint-bin/kpack-lint" "$tmp/$1.output" || fail "$1: bin output: $(cat "$tmp/$1.output")"
  "$tmp/$1.temp/kpack-lint-bin/kpack-lint" --version | grep -q "^kpack-lint version $2 " || fail "$1: installed binary is not $2"
}

# --release DIST TAG: action-install.sh installs goreleaser's output DIST
# (its archives and checksums.txt) as the release TAG.
if [ "${1:-}" = --release ]; then
  [ $# -eq 3 ] || fail "usage: scripts/test-action.sh --release DIST TAG"
  export STUB_GH="$tmp/gh" STUB_REPO=rocm-tools/kpack-lint
  mkdir -p "$STUB_GH/releases"
  ln -s "$(cd "$2" && pwd)" "$STUB_GH/releases/$3"
  installs snapshot ACTION_REF="$3"
  binary_says snapshot "${3#v}"
  log_has snapshot "release $3: kpack-lint_${3#v}_linux_amd64.tar.gz matches checksums.txt"
  [ ! -s "$STUB_GH/unexpected" ] || fail "action-install.sh sent gh commands the stub does not know: $(cat "$STUB_GH/unexpected")"
  echo "test-action: the action installs the release build of $3: ok"
  exit 0
fi

bin="${1:-}"
if [ -z "$bin" ]; then
  bin="$tmp/kpack-lint"
  go build -o "$bin" ./cmd/kpack-lint
fi

export KPACK_LINT="$bin" GITHUB_OUTPUT="$tmp/output" GITHUB_STEP_SUMMARY="$tmp/summary.md"
echo "# earlier step" > "$GITHUB_STEP_SUMMARY"
INPUT_PATHS="testdata/example" INPUT_POLICY=policies.yaml INPUT_VARIANT=asan INPUT_SARIF_FILE="$tmp/kpack-lint.sarif" \
  bash scripts/action.sh > "$tmp/stdout" || fail "action.sh exited $?"

grep -qx 'errors=2' "$GITHUB_OUTPUT" || fail "errors output: $(cat "$GITHUB_OUTPUT")"
grep -qx 'warnings=1' "$GITHUB_OUTPUT" || fail "warnings output: $(cat "$GITHUB_OUTPUT")"
# Without a baseline every open finding is new; the two errors fail.
for kv in new-errors=2 new-warnings=1 failing=2; do
  grep -qx "$kv" "$GITHUB_OUTPUT" || fail "want output $kv: $(cat "$GITHUB_OUTPUT")"
done
grep -qx "sarif-file=$tmp/kpack-lint.sarif" "$GITHUB_OUTPUT" || fail "sarif-file output"
grep -qx 'exit-code=1' "$GITHUB_OUTPUT" || fail "exit-code output"
[ "$(grep -c '^::error file=' "$tmp/stdout")" -eq 2 ] || fail "want 2 error annotations (KPL003, KPL004): $(cat "$tmp/stdout")"
[ "$(grep -c '^::warning file=bin/rocfft-test,title=KPL002 legacy-loader-shadowing::' "$tmp/stdout")" -eq 1 ] || fail "want 1 warning annotation"
grep -q '^2 errors fail the gate; 3 findings: 2 errors, 1 warning, 0 notes$' "$tmp/stdout" || fail "no text report in the log"
head -1 "$GITHUB_STEP_SUMMARY" | grep -qx '# earlier step' || fail "the job summary was overwritten, not appended"
grep -q '^## ❌ kpack-lint: 2 errors fail the gate; 3 findings: 2 errors, 1 warning, 0 notes$' "$GITHUB_STEP_SUMMARY" || fail "job summary heading: $(grep '^## ' "$GITHUB_STEP_SUMMARY")"
grep -q '^| `fft_test` | ' "$GITHUB_STEP_SUMMARY" || fail "job summary matrix"
grep -q 'kpack-lint explain --policy policies.yaml --variant asan' "$GITHUB_STEP_SUMMARY" || fail "job summary explain command"
grep -q '"version": "2.1.0"' "$tmp/kpack-lint.sarif" || fail "no SARIF written"
if [ -x ../shared/tools/sarif-validate ] && command -v npm >/dev/null; then
  ../shared/tools/sarif-validate "$tmp/kpack-lint.sarif"
else
  echo "test-action: skipped: SARIF validation (needs ../shared/tools/sarif-validate and npm)"
fi

# A baseline with one new error and two findings unchanged: the outputs
# and the job summary's heading lead with the one that fails; errors and
# warnings stay the totals.
sed 's/^rules:$/rules:\n  KPL003: {level: "off"}/' policies.yaml > "$tmp/no-kpl003.yaml"
"$bin" check --policy "$tmp/no-kpl003.yaml" --variant asan --fail-on none -q -o "sarif=$tmp/base-no3.sarif" testdata/example 2> /dev/null
: > "$GITHUB_OUTPUT"
: > "$tmp/newone.md"
INPUT_PATHS="testdata/example" INPUT_POLICY=policies.yaml INPUT_VARIANT=asan INPUT_BASELINE="$tmp/base-no3.sarif" INPUT_SARIF_FILE="$tmp/n.sarif" \
  GITHUB_STEP_SUMMARY="$tmp/newone.md" bash scripts/action.sh > "$tmp/newone.out" || fail "one new error: exit $?"
for kv in exit-code=1 failing=1 new-errors=1 new-warnings=0 errors=2 warnings=1; do
  grep -qx "$kv" "$GITHUB_OUTPUT" || fail "one new error: want output $kv: $(cat "$GITHUB_OUTPUT")"
done
grep -qx '## ❌ kpack-lint: 1 new error fails the gate; 3 findings: 2 errors, 1 warning, 0 notes \\(1 new, 2 unchanged, 0 fixed since the baseline\\)' "$tmp/newone.md" ||
  fail "one new error: summary heading: $(head -1 "$tmp/newone.md")"
[ "$(grep -c '^::error file=' "$tmp/newone.out")" -eq 1 ] || fail "one new error: want one error annotation: $(grep '^::' "$tmp/newone.out")"

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
grep -q '^kpack-lint .*: checked testdata/example with' "$tmp/stdout4" || fail "glob: testdata/exam* did not expand to testdata/example"
action_fails "$tmp/stdout5" INPUT_PATHS="testdata/example dist/*.whl"
grep -q '^::error title=kpack-lint::paths: dist/\*.whl matches no file$' "$tmp/stdout5" || fail "unmatched glob: $(cat "$tmp/stdout5")"

# Without GITHUB_OUTPUT the script cannot report: exit 2, as its header says.
action_fails "$tmp/stdout6" -u GITHUB_OUTPUT INPUT_PATHS=testdata/example
grep -q 'GITHUB_OUTPUT is not set' "$tmp/stdout6" || fail "no GITHUB_OUTPUT: $(cat "$tmp/stdout6")"

# ---- a hostile pull request: action.sh in a workspace the PR controls ----
# The workspace is a git checkout whose PR commit rewrites policies.yaml to
# waive everything; the build output dist/ carries its own waive-all
# policies.yaml, malformed archives named like workflow commands, and the
# PR commits kpack-lint.sarif as a symlink out of the workspace.
h="$tmp/hostile"
ws="$h/ws"
mkdir -p "$ws" "$h/outside"
echo "precious: not kpack-lint's" > "$h/outside/victim.txt"
waive_all='version: 1
variants:
  release:
    targets: [gfx942]
rules:
  KPL005: {level: "off"}
waivers:
  - {path: "*", reason: "<img src=x onerror=alert(1)>", expires: 9999-12-31}
  - {group: "*", reason: "tracked elsewhere", expires: 9999-12-31}
'
g() { git -C "$ws" -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false "$@"; }
g init -q
echo readme > "$ws/README.md"
g add README.md && g commit -qm "no policy yet"
nopolicy_sha="$(g rev-parse HEAD)"
printf 'version: 1\nvariants:\n  release: {targets: [gfx942]}\nrules:\n  KPL005: {level: error}\n' > "$ws/policies.yaml"
g add policies.yaml && g commit -qm base
base_sha="$(g rev-parse HEAD)"
printf '%s' "$waive_all" > "$ws/policies.yaml"
ln -s ../outside/victim.txt "$ws/kpack-lint.sarif"
g add policies.yaml kpack-lint.sarif && g commit -qm "the pull request"
mkdir -p "$ws/dist/::error file=.github/workflows"
printf 'x' > "$ws/dist/bad.kpack"
printf 'x' > "$ws/dist/::error file=.github/workflows/ci.yml,line=1,title=Security::rotate the secrets.kpack"
printf 'x' > "$ws/dist/::group::kpack-lint details.kpack"
printf 'x' > "$ws/dist/::add-mask::secret.kpack"
printf '%s' "$waive_all" > "$ws/dist/policies.yaml"

# hostile_run NAME WANT_EXIT VAR=VALUE...: action.sh in $ws as a pull
# request (stdout and stderr in $tmp/NAME.out, the outputs in
# $tmp/NAME.output, the summary in $tmp/NAME.md).
hostile_run() {
  local name="$1" want="$2" rc=0
  shift 2
  : > "$tmp/$name.output"
  : > "$tmp/$name.md"
  (cd "$ws" && env GITHUB_OUTPUT="$tmp/$name.output" GITHUB_STEP_SUMMARY="$tmp/$name.md" GITHUB_EVENT_NAME=pull_request \
    GITHUB_BASE_REF=main GITHUB_REF=refs/pull/9/merge INPUT_PATHS=dist INPUT_TARGETS= INPUT_POLICY= INPUT_SARIF_FILE= \
    "$@" bash "$OLDPWD/scripts/action.sh") > "$tmp/$name.out" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || fail "$name: action.sh exited $rc, want $want: $(cat "$tmp/$name.out")"
}
# log_safe NAME: every line of the log that starts (after spaces) with
# "::" is the tool's own annotation (--format github, escaped by
# kpack-lint), one of action.sh's own commands, or the stop/resume pair
# around the text report, inside which no line starts with "::".
log_safe() {
  local name="$1" token
  token="$(sed -n 's/^::stop-commands::\([0-9a-f]\{32\}\)$/\1/p' "$tmp/$name.out")"
  awk -v tok="$token" -v name="$name" '
    $0 == "::stop-commands::" tok && tok != "" { inside = 1; next }
    $0 == "::" tok "::" && inside { inside = 0; next }
    /^[[:space:]]*::/ {
      if (inside) { print name ": a line of the text report is a workflow command: " $0; bad = 1; next }
      if ($0 ~ /^::(error|warning|notice) file=[^:]*::/ || $0 ~ /^::(error|warning|notice) title=kpack-lint[a-z ]*::/) next
      print name ": a line not from kpack-lint or action.sh starts with \"::\": " $0; bad = 1
    }
    END { exit bad }' "$tmp/$name.out" || fail "$name: unsafe log lines (above)"
  # kpack-lint's text writer never starts a line with "::", so action.sh
  # has nothing to backslash inside the stop-commands block.
  if [ -n "$token" ] && sed -n "/^::stop-commands::$token\$/,/^::$token::\$/p" "$tmp/$name.out" | grep -q '^[[:space:]]*\\::'; then
    fail "$name: kpack-lint's text report starts lines with '::' (action.sh escaped them)"
  fi
}
# outputs_ok NAME KEY...: $tmp/NAME.output parses as the runner reads it
# (KEY=VALUE lines, KEY<<DELIM blocks) into exactly the keys given, each
# once; the values are in $tmp/NAME.values (key=value, newlines as \n).
outputs_ok() {
  local name="$1"
  shift
  awk -v want="$*" '
    BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) need[w[i]] = 1 }
    delim != "" { if ($0 == delim) { delim = ""; print key "=" val; next } val = (val == "" && !started) ? $0 : val "\\n" $0; started = 1; next }
    /^[A-Za-z0-9_-]+<</ { key = $0; sub(/<<.*/, "", key); delim = substr($0, length(key) + 3); val = ""; started = 0; seen[key]++; next }
    /^[A-Za-z0-9_-]+=/ { key = $0; sub(/=.*/, "", key); seen[key]++; print; next }
    { print "malformed line: " $0 > "/dev/stderr"; bad = 1 }
    END {
      if (delim != "") { print "unterminated " key > "/dev/stderr"; bad = 1 }
      for (k in seen) if (!(k in need) || seen[k] != 1) { print "output " k " written " seen[k] " times, wanted: " (k in need) > "/dev/stderr"; bad = 1 }
      for (k in need) if (!(k in seen)) { print "no output " k > "/dev/stderr"; bad = 1 }
      exit bad
    }' "$tmp/$name.output" > "$tmp/$name.values" || fail "$name: GITHUB_OUTPUT is not well-formed: $(cat "$tmp/$name.output")"
}
all_outputs="errors warnings new-errors new-warnings failing sarif-file exit-code baseline upload-baseline policy-base"
victim_untouched() {
  [ "$(cat "$h/outside/victim.txt")" = "precious: not kpack-lint's" ] || fail "$1: the file the symlink points at was written: $(head -c 80 "$h/outside/victim.txt")"
}

# 1. policy-from-base: the base commit's policy, not the PR's waive-all
# copy nor dist/policies.yaml; the symlinked sarif-file is replaced, not
# followed; the summary lists the PR's policy changes, escaped.
hostile_run frombase 0 INPUT_POLICY_FROM_BASE=true BASE_SHA="$base_sha"
log_safe frombase
outputs_ok frombase $all_outputs
grep -qx 'exit-code=1' "$tmp/frombase.values" || fail "frombase: the PR's waivers were used: $(cat "$tmp/frombase.values")"
grep -qx 'errors=4' "$tmp/frombase.values" || fail "frombase: want 4 errors (4 malformed archives): $(cat "$tmp/frombase.values")"
grep -qx "policy-base=$base_sha" "$tmp/frombase.values" || fail "frombase: policy-base output"
grep -qx "kpack-lint action: policy: policies.yaml as of the base commit $base_sha (policy-from-base; the pull request's changes to it are not used)" "$tmp/frombase.out" ||
  fail "frombase: the log does not say where the policy came from: $(cat "$tmp/frombase.out")"
victim_untouched frombase
[ -f "$ws/kpack-lint.sarif" ] && [ ! -L "$ws/kpack-lint.sarif" ] && grep -q '"version": "2.1.0"' "$ws/kpack-lint.sarif" || fail "frombase: kpack-lint.sarif is not the report"
grep -qx '::warning title=kpack-lint::sarif-file kpack-lint.sarif is a symlink (to ../outside/victim.txt): it is replaced by the report, and what it points at is left as it was' "$tmp/frombase.out" ||
  fail "frombase: no warning on the symlinked sarif-file"
grep -qF "**Policy:** \`policies.yaml\` as of the base commit \`${base_sha:0:12}\` (policy-from-base)" "$tmp/frombase.md" || fail "frombase: summary policy line: $(cat "$tmp/frombase.md")"
grep -qx '### Policy changes' "$tmp/frombase.md" || fail "frombase: no Policy changes section"
grep -qF "3 changes to \`policies.yaml\` can let more through the gate than \`policies.yaml@${base_sha:0:12}\`:" "$tmp/frombase.md" || fail "frombase: policy changes count: $(sed -n '/Policy changes/,$p' "$tmp/frombase.md")"
grep -qF -- '- **rule turned down** at `policies.yaml:6`: `KPL005` turned off \(was error\)' "$tmp/frombase.md" || fail "frombase: KPL005 off not listed"
grep -qF -- '- **waiver added** at `policies.yaml:8`: `(path *)`\, expires on 9999\-12\-31\, reason `<img src=x onerror=alert(1)>`\, no owner\; too broad\: `it names no rule' "$tmp/frombase.md" ||
  fail "frombase: the waiver added (its reason in a code span): $(grep 'waiver added' "$tmp/frombase.md")"
if grep -v '`' "$tmp/frombase.md" | grep -q '<img'; then fail "frombase: raw HTML from the policy outside a code span"; fi
rm -f "$ws/kpack-lint.sarif" && ln -s ../outside/victim.txt "$ws/kpack-lint.sarif"

# 2. Without policy-from-base the PR's own policies.yaml (the working
# directory's) is used, and its waivers are loud: a broad-waiver warning
# per waiver, at its line.
hostile_run ownpolicy 0
log_safe ownpolicy
outputs_ok ownpolicy $all_outputs
grep -qx 'exit-code=0' "$tmp/ownpolicy.values" || fail "ownpolicy: $(cat "$tmp/ownpolicy.values")"
grep -q '^::warning file=policies.yaml,line=8,title=kpack-lint broad-waiver::waiver (path \*) is too broad: it names no rule' "$tmp/ownpolicy.out" ||
  fail "ownpolicy: no broad-waiver warning at policies.yaml:8: $(grep -n '::warning' "$tmp/ownpolicy.out")"
victim_untouched ownpolicy

# 3. No policies.yaml in the working directory: discovery meets the one
# the build output carries and refuses it (exit 2, no outputs).
mv "$ws/policies.yaml" "$h/pr-policies.yaml"
hostile_run planted 2
log_safe planted
[ ! -s "$tmp/planted.output" ] || fail "planted: outputs written: $(cat "$tmp/planted.output")"
grep -q '^kpack-lint: dist/policies.yaml is in the input dist: policy discovery never reads a policy the checked build carries .*; pass --policy dist/policies.yaml to use it anyway, --policy FILE for the repository.s own, or --no-policy for none$' "$tmp/planted.out" ||
  fail "planted: no refusal naming dist/policies.yaml: $(cat "$tmp/planted.out")"
grep -qx '::error title=kpack-lint::kpack-lint could not check dist (exit 2); see the log above' "$tmp/planted.out" || fail "planted: no error annotation"
victim_untouched planted
mv "$h/pr-policies.yaml" "$ws/policies.yaml"

# 4. A glob-matched name with a newline and "::" (not a wheel: exit 2):
# action.sh's own error names it on one line.
printf 'x' > "$ws/dist/evil"$'\n'"::error title=forged::pwned.whl"
hostile_run newline 2 INPUT_PATHS='dist/*.whl' INPUT_POLICY_FROM_BASE=true BASE_SHA="$base_sha"
log_safe newline
grep -qxF '::error title=kpack-lint::kpack-lint could not check dist/evil\x0a::error title=forged::pwned.whl (exit 2); see the log above' "$tmp/newline.out" ||
  fail "newline: action.sh's error line: $(cat "$tmp/newline.out")"
rm "$ws/dist/evil"$'\n'"::error title=forged::pwned.whl"

# 4b. sarif-file through a folder the pull request committed as a
# symlink out of the workspace is refused, given relative or absolute.
ln -s ../outside "$ws/reports"
for sf in reports/k.sarif "$ws/reports/k.sarif"; do
  hostile_run symdir 2 INPUT_POLICY_FROM_BASE=true BASE_SHA="$base_sha" GITHUB_WORKSPACE="$ws" INPUT_SARIF_FILE="$sf"
  log_safe symdir
  grep -qF "sarif-file $sf: the folder " "$tmp/symdir.out" && grep -qF "reports is a symlink (to ../outside)" "$tmp/symdir.out" ||
    fail "symdir $sf: no refusal of the symlinked folder: $(cat "$tmp/symdir.out")"
  [ ! -e "$h/outside/k.sarif" ] || fail "symdir $sf: the report was written out of the workspace"
done
rm "$ws/reports"

# 5. An output value with a newline cannot add outputs: sarif-file (a
# workflow's input) holding "\nerrors=0" is written in the heredoc form.
hostile_run newline-output 0 INPUT_POLICY_FROM_BASE=true BASE_SHA="$base_sha" INPUT_SARIF_FILE="$h/k"$'\n'"errors=0.sarif"
outputs_ok newline-output $all_outputs
grep -qx 'errors=4' "$tmp/newline-output.values" || fail "newline-output: errors forged: $(cat "$tmp/newline-output.values")"
grep -qxF "sarif-file=$h/k\\nerrors=0.sarif" "$tmp/newline-output.values" || fail "newline-output: sarif-file: $(cat "$tmp/newline-output.values")"

# 6. policy-from-base from a shallow clone (the base commit fetched), a
# base commit without a policy (no policy, said so), no base SHA (exit 2).
git init -q --bare "$h/origin.git"
git -C "$h/origin.git" config uploadpack.allowAnySHA1InWant true
g push -q "$h/origin.git" HEAD:refs/heads/pr
shallow="$h/shallow"
git clone -q --depth=1 --branch pr "file://$h/origin.git" "$shallow"
cp -R "$ws/dist" "$shallow/dist"
git -C "$shallow" cat-file -e "$base_sha^{commit}" 2>/dev/null && fail "shallow: the clone has the base commit already"
ws_saved="$ws" ws="$shallow"
hostile_run shallow 0 INPUT_POLICY_FROM_BASE=true BASE_SHA="$base_sha" INPUT_SARIF_FILE="$h/shallow.sarif"
grep -qF "kpack-lint action: policy-from-base: the checkout lacks the base commit $base_sha (a shallow clone); fetching it: git fetch --no-tags --depth=1 origin $base_sha" "$tmp/shallow.out" ||
  fail "shallow: $(cat "$tmp/shallow.out")"
grep -qx 'exit-code=1' "$tmp/shallow.output" || fail "shallow: $(cat "$tmp/shallow.output")"
ws="$ws_saved"
hostile_run nobasepolicy 0 INPUT_POLICY_FROM_BASE=true BASE_SHA="$nopolicy_sha" INPUT_SARIF_FILE="$h/nobase.sarif"
grep -qx "::warning title=kpack-lint policy::policy-from-base: the base commit $nopolicy_sha has no policies.yaml: checking with no policy (the pull request's copy is not used)" "$tmp/nobasepolicy.out" ||
  fail "nobasepolicy: $(cat "$tmp/nobasepolicy.out")"
grep -qx 'exit-code=1' "$tmp/nobasepolicy.output" || fail "nobasepolicy: $(cat "$tmp/nobasepolicy.output")"
grep -qF '3 changes to `policies.yaml` can let more through the gate than `policies.yaml@' "$tmp/nobasepolicy.md" || fail "nobasepolicy: $(sed -n '/Policy changes/,$p' "$tmp/nobasepolicy.md")"
hostile_run nosha 2 INPUT_POLICY_FROM_BASE=true BASE_SHA=
grep -q '^::error title=kpack-lint::policy-from-base: no base commit SHA for this pull request' "$tmp/nosha.out" || fail "nosha: $(cat "$tmp/nosha.out")"
# 7. policy-from-base with a waivers file: the base commit's copy is used
# too, and the pull request's added waiver is listed with its owner.
printf 'waivers:\n  - {rule: KPL005, path: bad.kpack, reason: "broken on purpose", expires: 2099-01-01}\n' > "$h/base-waivers.yaml"
base2_sha="$(
  export GIT_INDEX_FILE="$h/base2.index"
  g read-tree "$base_sha" &&
    g update-index --add --cacheinfo "100644,$(g hash-object -w "$h/base-waivers.yaml"),waivers.yaml" &&
    g commit-tree "$(g write-tree)" -p "$base_sha" -m "base with waivers"
)"
{ cat "$h/base-waivers.yaml"; printf '  - {rule: KPL005, path: "*", reason: "all of them", owner: "@mallory", expires: 2099-01-01}\n'; } > "$ws/waivers.yaml"
hostile_run basewaivers 0 INPUT_POLICY_FROM_BASE=true BASE_SHA="$base2_sha" INPUT_WAIVERS=waivers.yaml INPUT_SARIF_FILE="$h/bw.sarif"
log_safe basewaivers
grep -qx 'exit-code=1' "$tmp/basewaivers.output" || fail "basewaivers: the pull request's waivers were used: $(cat "$tmp/basewaivers.output")"
grep -qx "kpack-lint action: waivers: waivers.yaml as of the base commit $base2_sha (policy-from-base; the pull request's changes to it are not used)" "$tmp/basewaivers.out" ||
  fail "basewaivers: the log does not say where the waivers came from: $(cat "$tmp/basewaivers.out")"
grep -qF -- '- **waiver added** at `waivers.yaml:3`: `(KPL005, path *)`' "$tmp/basewaivers.md" && grep -qF 'owner `@mallory`' "$tmp/basewaivers.md" ||
  fail "basewaivers: the summary does not list the added waiver with its owner: $(sed -n '/Policy changes/,$p' "$tmp/basewaivers.md")"
rm "$ws/waivers.yaml"
victim_untouched end
echo "test-action: hostile workspace: ok"

# ---- baseline-artifact: action.sh against the stub gh ----
if command -v jq >/dev/null; then # the stub's jq filter does what the script means
  got="$(echo '[{"databaseId":3,"event":"pull_request"},{"databaseId":2,"event":"push"},{"databaseId":1,"event":"schedule"}]' |
    jq -r "$(sed -n "s/^runs_jq='\(.*\)'$/\1/p" scripts/action.sh)" | tr '\n' ' ')"
  [ "$got" = "2 1 " ] || fail "action.sh's runs filter gives '$got', want '2 1 '"
else
  echo "test-action: skipped: checking action.sh's jq filter (no jq)"
fi
export STUB_GH="$tmp/gh" STUB_REPO=rocm-tools/demo
# the example's own report as the earlier run's artifact
mkdir -p "$STUB_GH/artifacts/41/kpack-lint-baseline" "$STUB_GH/artifacts/50/nightly-report"
cp "$tmp/kpack-lint.sarif" "$STUB_GH/artifacts/41/kpack-lint-baseline/kpack-lint.sarif"
cp "$tmp/kpack-lint.sarif" "$STUB_GH/artifacts/50/nightly-report/kpack-lint.sarif"
echo '{}' > "$STUB_GH/artifacts/50/nightly-report/other.json"

# baseline_run NAME VAR=VALUE...: runs action.sh on the example as a pull
# request against release/7.2 of workflow pr.yml, with the stub gh and the
# environment changed by the arguments; stdout in $tmp/NAME.out, outputs
# in $tmp/NAME.output, the summary in $tmp/NAME.md.
baseline_run() {
  local name="$1"
  shift
  : > "$tmp/$name.output"
  : > "$tmp/$name.md"
  env PATH="$stubs:$PATH" GH_TOKEN=stub-token GITHUB_REPOSITORY=rocm-tools/demo \
    GITHUB_WORKFLOW_REF="rocm-tools/demo/.github/workflows/pr.yml@refs/pull/7/merge" \
    GITHUB_EVENT_NAME=pull_request GITHUB_BASE_REF=release/7.2 GITHUB_REF=refs/pull/7/merge DEFAULT_BRANCH=main \
    GITHUB_OUTPUT="$tmp/$name.output" GITHUB_STEP_SUMMARY="$tmp/$name.md" STUB_BRANCH=release/7.2 STUB_WORKFLOW=pr.yml \
    INPUT_PATHS=testdata/example INPUT_POLICY=policies.yaml INPUT_VARIANT=asan INPUT_SARIF_FILE="$tmp/$name.sarif" \
    INPUT_BASELINE_ARTIFACT=kpack-lint-baseline "$@" bash scripts/action.sh > "$tmp/$name.out" 2>&1 ||
    fail "$name: action.sh exited $?: $(cat "$tmp/$name.out")"
}
out_is() { grep -qx "$2" "$tmp/$1.output" || fail "$1: want output $2: $(cat "$tmp/$1.output")"; }

# Found: the newest successful run of the PR's base branch has it; every
# finding is unchanged, so nothing fails.
mkdir -p "$STUB_GH" && printf '41\n' > "$STUB_GH/runs"
baseline_run found
out_is found 'exit-code=0'
out_is found 'errors=2'
out_is found 'new-errors=0'
out_is found 'failing=0'
out_is found 'upload-baseline='
grep -q '^## ⚠️ kpack-lint: nothing new fails the gate; 3 findings: ' "$tmp/found.md" || fail "found: summary heading: $(grep '^## ' "$tmp/found.md")"
grep -q '^baseline=.*/kpack-lint-baseline-41/kpack-lint.sarif$' "$tmp/found.output" || fail "found: baseline output: $(cat "$tmp/found.output")"
grep -q '0 new, 3 unchanged, 0 fixed since the baseline' "$tmp/found.md" || fail "found: summary has no baseline counts"
grep -q '^\*\*Baseline:\*\* `kpack-lint.sarif` of artifact `kpack-lint-baseline`, \[run 41\](https://github.com/rocm-tools/demo/actions/runs/41) of `pr.yml` on `release/7.2`\.$' "$tmp/found.md" ||
  fail "found: summary baseline line: $(grep Baseline "$tmp/found.md")"

# Not found: no successful run yet. The check runs without a baseline and
# says so; every finding counts.
: > "$STUB_GH/runs"
# (baseline-artifact alone: missing-baseline defaults to fail)
baseline_run notfound
out_is notfound 'exit-code=1'
out_is notfound 'baseline='
grep -q '^::warning title=kpack-lint baseline::no successful run of workflow pr.yml on branch release/7.2 yet; missing-baseline: fail: checking without a baseline (every finding counts)$' "$tmp/notfound.out" ||
  fail "notfound: no warning: $(cat "$tmp/notfound.out")"
grep -q '^\*\*Baseline:\*\* none: no successful run of workflow pr.yml on branch release/7.2 yet' "$tmp/notfound.md" || fail "notfound: summary says nothing"

# Download failure: the newest run lacks the artifact (expired), an older
# one has it; when none has it, no baseline.
printf '42\n41\n' > "$STUB_GH/runs"
baseline_run older
out_is older 'exit-code=0'
grep -q '^kpack-lint action: run 42 of pr.yml on release/7.2: could not download artifact kpack-lint-baseline' "$tmp/older.out" || fail "older: no line on run 42"
grep -q '\[run 41\]' "$tmp/older.md" || fail "older: baseline not from run 41"
printf '42\n43\n' > "$STUB_GH/runs"
baseline_run nodownload
out_is nodownload 'exit-code=1'
out_is nodownload 'baseline='
grep -q '^::warning title=kpack-lint baseline::none of the newest successful runs of workflow pr.yml on branch release/7.2 has artifact kpack-lint-baseline;' "$tmp/nodownload.out" ||
  fail "nodownload: no warning: $(cat "$tmp/nodownload.out")"

# gh cannot list the runs (no actions: read permission): no baseline, the
# warning names the permission.
rm "$STUB_GH/runs"
baseline_run nolist
out_is nolist 'exit-code=1'
grep -q 'gh run list failed for workflow pr.yml on branch release/7.2 of rocm-tools/demo (the job needs permission actions: read)' "$tmp/nolist.out" || fail "nolist: $(cat "$tmp/nolist.out")"

# A named workflow and an artifact with two reports: the one named like
# sarif-file is taken.
printf '50\n' > "$STUB_GH/runs"
baseline_run named STUB_WORKFLOW=nightly.yml INPUT_BASELINE_WORKFLOW=nightly.yml INPUT_BASELINE_ARTIFACT=nightly-report INPUT_SARIF_FILE="$tmp/kpack-lint.sarif"
out_is named 'exit-code=0'
grep -q '^baseline=.*/kpack-lint-baseline-50/kpack-lint.sarif$' "$tmp/named.output" || fail "named: $(cat "$tmp/named.output")"

# only-new-issues on a push to the default branch: the default branch's
# runs, this run's SARIF to upload; the first run records the baseline and
# fails on nothing.
: > "$STUB_GH/runs"
baseline_run first INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true GITHUB_EVENT_NAME=push GITHUB_BASE_REF= GITHUB_REF=refs/heads/main \
  GITHUB_WORKFLOW_REF="rocm-tools/demo/.github/workflows/pr.yml@refs/heads/main" STUB_BRANCH=main
out_is first 'exit-code=0'
out_is first 'upload-baseline=kpack-lint-baseline'
grep -qx '\*\*Baseline:\*\* none yet (no successful run of workflow pr.yml on branch main yet): this run.s report is uploaded as artifact `kpack-lint-baseline`, the first baseline, and fails on nothing; later runs and pull requests fail only on new findings.' "$tmp/first.md" ||
  fail "first: summary says nothing of the first baseline: $(grep Baseline "$tmp/first.md")"
grep -q '^::warning title=kpack-lint baseline' "$tmp/first.out" && fail "first: a warning on the first baseline"
# ... a later push finds it (the default branch from gh when the event has none)
printf '41\n' > "$STUB_GH/runs"
baseline_run later INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true GITHUB_EVENT_NAME=schedule GITHUB_BASE_REF= GITHUB_REF=refs/heads/main DEFAULT_BRANCH= STUB_BRANCH=main
out_is later 'exit-code=0'
out_is later 'upload-baseline=kpack-lint-baseline'
grep -q '\[run 41\]' "$tmp/later.md" || fail "later: no baseline"
# ... a push to another branch uploads its own (for pull requests into
# it) and compares with the default branch's, but records no first one:
# a missing baseline warns (missing-baseline: warn) or fails (fail).
: > "$STUB_GH/runs"
baseline_run release INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true GITHUB_EVENT_NAME=push GITHUB_BASE_REF= GITHUB_REF=refs/heads/release/7.2 STUB_BRANCH=main
out_is release 'upload-baseline=kpack-lint-baseline'
out_is release 'exit-code=0'
grep -q '^::warning title=kpack-lint baseline::no successful run of workflow pr.yml on branch main yet; missing-baseline: warn' "$tmp/release.out" || fail "release: no warning"
baseline_run release-fail INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true INPUT_MISSING_BASELINE=fail GITHUB_EVENT_NAME=push GITHUB_BASE_REF= GITHUB_REF=refs/heads/release/7.2 STUB_BRANCH=main
out_is release-fail 'exit-code=1'
# The default branch's first run with missing-baseline: fail records the
# baseline and its findings count.
baseline_run first-fail INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true INPUT_MISSING_BASELINE=fail GITHUB_EVENT_NAME=push GITHUB_BASE_REF= GITHUB_REF=refs/heads/main \
  GITHUB_WORKFLOW_REF="rocm-tools/demo/.github/workflows/pr.yml@refs/heads/main" STUB_BRANCH=main
out_is first-fail 'exit-code=1'
out_is first-fail 'upload-baseline=kpack-lint-baseline'
# ... and a pull request uploads nothing.
baseline_run pr INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true
out_is pr 'upload-baseline='

# missing-baseline: the pull request that adds the workflow (no run of
# the base branch has the artifact yet). With only-new-issues the default
# is warn: every finding is reported (annotations, summary, outputs) and
# none fails; fail lets every finding count; gh that cannot list the runs
# is no missing baseline: every finding counts even with warn.
: > "$STUB_GH/runs"
baseline_run firstpr INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true
for kv in exit-code=0 failing=0 errors=2 new-errors=2 baseline= upload-baseline=; do out_is firstpr "$kv"; done
grep -qx '::warning title=kpack-lint baseline::no successful run of workflow pr.yml on branch release/7.2 yet; missing-baseline: warn: every finding is reported and none fails this run (none can be told new until a run of the base branch records the baseline)' "$tmp/firstpr.out" ||
  fail "firstpr: no warning: $(grep '^::warning' "$tmp/firstpr.out")"
[ "$(grep -c '^::error file=' "$tmp/firstpr.out")" -eq 2 ] || fail "firstpr: want the 2 errors annotated (reported, not failing): $(grep '^::' "$tmp/firstpr.out")"
grep -qF '## ⚠️ kpack-lint: nothing fails the gate \(--fail-on none\); 3 findings: 2 errors, 1 warning, 0 notes' "$tmp/firstpr.md" || fail "firstpr: heading: $(grep '^## ' "$tmp/firstpr.md")"
grep -qF 'Every finding is reported and none fails this run (`missing-baseline: warn`)' "$tmp/firstpr.md" || fail "firstpr: summary says nothing of missing-baseline"
grep -q '^- \*\*error\*\* \[KPL003\]' "$tmp/firstpr.md" || fail "firstpr: the summary does not list the findings"
baseline_run firstpr-fail INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true INPUT_MISSING_BASELINE=fail
for kv in exit-code=1 failing=2; do out_is firstpr-fail "$kv"; done
grep -q '^::warning title=kpack-lint baseline::no successful run of workflow pr.yml on branch release/7.2 yet; missing-baseline: fail: checking without a baseline (every finding counts)$' "$tmp/firstpr-fail.out" ||
  fail "firstpr-fail: $(grep '^::warning' "$tmp/firstpr-fail.out")"
rm "$STUB_GH/runs"
baseline_run nolist-warn INPUT_BASELINE_ARTIFACT= INPUT_ONLY_NEW_ISSUES=true INPUT_MISSING_BASELINE=warn
for kv in exit-code=1 failing=2; do out_is nolist-warn "$kv"; done
: > "$STUB_GH/runs"
action_fails "$tmp/badmissing.out" INPUT_PATHS=testdata/example INPUT_MISSING_BASELINE=maybe
grep -q 'missing-baseline: want warn or fail, got maybe' "$tmp/badmissing.out" || fail "badmissing: $(cat "$tmp/badmissing.out")"
# baseline and baseline-artifact together: exit 2.
action_fails "$tmp/both.out" INPUT_PATHS=testdata/example INPUT_BASELINE="$tmp/kpack-lint.sarif" INPUT_BASELINE_ARTIFACT=x
grep -q 'not both' "$tmp/both.out" || fail "both: $(cat "$tmp/both.out")"
[ ! -s "$STUB_GH/unexpected" ] || fail "action.sh sent gh commands the stub does not know: $(cat "$STUB_GH/unexpected")"
echo "test-action: baseline-artifact: ok"

# ---- action-install.sh: release download, moving tags, source builds ----
# fake_release TAG [BAD]: a release TAG in the stub with a linux/amd64
# archive whose kpack-lint says TAG's version; BAD: checksums.txt lies.
fake_release() {
  local v="${1#v}" d="$STUB_GH/releases/$1" a
  a="kpack-lint_${v}_linux_amd64.tar.gz"
  mkdir -p "$d/x"
  printf '#!/bin/sh\necho "kpack-lint version %s (commit 0123456789abcdef0123456789abcdef01234567, 2026-01-02T03:04:05Z)"\n' "$v" > "$d/x/kpack-lint"
  chmod +x "$d/x/kpack-lint"
  tar -czf "$d/$a" -C "$d/x" kpack-lint
  (cd "$d" && sha256sum "$a" > checksums.txt && echo "0000000000000000000000000000000000000000000000000000000000000000  kpack-lint_${v}_darwin_arm64.tar.gz" >> checksums.txt)
  [ "${2:-}" != bad ] || sed -i "s/^[0-9a-f]*  $a\$/$(printf 'f%.0s' $(seq 64))  $a/" "$d/checksums.txt"
}
export STUB_REPO=rocm-tools/kpack-lint
fake_release v1.2.3
fake_release v1.10.0
fake_release v1.20.1
fake_release v1.2.4 bad
printf '%s\n' v2.0.0 v1.10.0 v1.9.9 v1.2.3 v1.20.1 > "$STUB_GH/tags" # v1.2.4: only by its own tag
installs tag ACTION_REF=v1.2.3
binary_says tag 1.2.3
grep -qx 'install=release' "$tmp/tag.output" || fail "tag: install output"
log_has tag "release v1.2.3: kpack-lint_1.2.3_linux_amd64.tar.gz matches checksums.txt (sha256 "
installs major ACTION_REF=v1 # the newest v1.x.y: v1.20.1, not v2.0.0
binary_says major 1.20.1
log_has major "v1 resolves to the newest release under it, v1.20.1"
installs minor ACTION_REF=v1.2 # v1.2.y: v1.2.3, not v1.20.1
binary_says minor 1.2.3
log_has minor "v1.2 resolves to the newest release under it, v1.2.3"
install_fails tampered ACTION_REF=v1.2.4
log_has tampered "::error title=kpack-lint install::release v1.2.4: kpack-lint_1.2.4_linux_amd64.tar.gz has sha256 "
[ ! -e "$tmp/tampered.temp/kpack-lint-bin/kpack-lint" ] || fail "tampered: a binary was installed"
[ ! -s "$STUB_GH/unexpected" ] || fail "action-install.sh sent gh commands the stub does not know: $(cat "$STUB_GH/unexpected")"
echo "test-action: release install: ok"

# A tag without a release, a branch: built from the action's checkout with
# the runner's go (a real build), the job's go untouched.
installs norelease ACTION_REF=v1.2.5
log_has norelease "could not download kpack-lint_1.2.5_linux_amd64.tar.gz and checksums.txt of release v1.2.5 of rocm-tools/kpack-lint"
log_has norelease "building from source at v1.2.5 with the runner's go ($(go env GOVERSION), at least go.mod's "
grep -qx 'install=source' "$tmp/norelease.output" || fail "norelease: install output"
"$tmp/norelease.temp/kpack-lint-bin/kpack-lint" --version | grep -q '^kpack-lint version 1.2.5' || fail "norelease: the built binary does not say the tag's version"
# A commit SHA with a runner's go older than go.mod's: GOTOOLCHAIN through
# it, the SHA stamped as the commit (stub go: records, writes a fake binary).
mkdir -p "$tmp/oldgo"
cat > "$tmp/oldgo/go" <<'STUB'
#!/usr/bin/env bash
case "$1" in
  version) echo "go version ${STUB_GO_VERSION:-go1.22.0} linux/amd64" ;;
  build)
    echo "GOTOOLCHAIN=${GOTOOLCHAIN:-} GOFLAGS=${GOFLAGS:-} GOWORK=${GOWORK:-} GOROOT=${GOROOT:-} args=$*" >> "$STUB_GO_LOG"
    while [ $# -gt 0 ] && [ "$1" != -o ]; do shift; done
    printf '#!/bin/sh\necho "kpack-lint version 0.1.0-dev"\n' > "$2" && chmod +x "$2" ;;
  *) echo "stub go: unexpected: go $*" >&2; exit 64 ;;
esac
STUB
chmod +x "$tmp/oldgo/go"
sha=0123456789abcdef0123456789abcdef01234567
installs oldgo ACTION_REF=$sha PATH="$stubs:$tmp/oldgo:$PATH" STUB_GO_LOG="$tmp/oldgo.calls" GOFLAGS=-mod=vendor
log_has oldgo "$STUB_REPO@$sha is a branch or commit, not a release tag"
log_has oldgo "with GOTOOLCHAIN=go1.25.14 through the runner's go (go1.22.0 is older than go.mod's"
grep -q "^GOTOOLCHAIN=go1.25.14 GOFLAGS= GOWORK=off GOROOT= args=build -trimpath -ldflags -X github.com/rocm-tools/kpack-lint/internal/version.commit=$sha -o " "$tmp/oldgo.calls" ||
  fail "oldgo: go build ran as: $(cat "$tmp/oldgo.calls")"
# No go at all (or one too old for GOTOOLCHAIN): a private toolchain from
# the download site (here a file:// folder), checked against its .sha256
# and called by its full path.
restricted="$stubs:/usr/bin:/bin"
if PATH="$restricted" command -v go >/dev/null; then
  echo "test-action: skipped: the private-toolchain build (a go in /usr/bin or /bin)"
else
  site="$tmp/godl"
  mkdir -p "$site/x/go/bin"
  cp "$tmp/oldgo/go" "$site/x/go/bin/go"
  tar -czf "$site/go1.25.14.linux-amd64.tar.gz" -C "$site/x" go
  (cd "$site" && sha256sum go1.25.14.linux-amd64.tar.gz > go1.25.14.linux-amd64.tar.gz.sha256)
  installs nogo ACTION_REF=main PATH="$restricted" STUB_GO_LOG="$tmp/nogo.calls" KPACK_LINT_GO_DL="file://$site"
  log_has nogo "with a private go1.25.14 in $tmp/nogo.temp/kpack-lint-go (the runner has no go; the job's PATH is not changed)"
  grep -q '^GOTOOLCHAIN=local GOFLAGS= GOWORK=off GOROOT= args=build -trimpath -ldflags  -o ' "$tmp/nogo.calls" || fail "nogo: go build ran as: $(cat "$tmp/nogo.calls")"
  installs go120 ACTION_REF=main PATH="$stubs:$tmp/oldgo:/usr/bin:/bin" STUB_GO_VERSION=go1.20.14 STUB_GO_LOG="$tmp/go120.calls" KPACK_LINT_GO_DL="file://$site"
  log_has go120 "with a private go1.25.14 in $tmp/go120.temp/kpack-lint-go (the runner has go1.20.14;"
  echo "0000000000000000000000000000000000000000000000000000000000000000  go1.25.14.linux-amd64.tar.gz" > "$site/go1.25.14.linux-amd64.tar.gz.sha256"
  install_fails badgo ACTION_REF=main PATH="$restricted" STUB_GO_LOG="$tmp/badgo.calls" KPACK_LINT_GO_DL="file://$site"
  log_has badgo "go1.25.14.linux-amd64.tar.gz has sha256 "
fi
[ ! -s "$STUB_GH/unexpected" ] || fail "action-install.sh sent gh commands the stub does not know: $(cat "$STUB_GH/unexpected")"
echo "test-action: source builds: ok"

