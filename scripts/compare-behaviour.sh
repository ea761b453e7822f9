#!/usr/bin/env bash
# Runs two kpack-lint binaries over every committed test tree, golden
# command, shared scenario and hostile recipe, in every report format, and
# compares their stdout, stderr, exit codes and the files they write, byte
# for byte (temporary paths normalised). Prints one line per difference and
# a summary: runs, identical, skipped (with why), different.
#
# Usage: scripts/compare-behaviour.sh OLD_BIN NEW_BIN
#   SHARED=DIR      the shared fixtures (default: ../shared next to the repository)
#   HOSTILE=0       skip the hostile recipes (they take several minutes)
#   KEEP=1          keep the work folder (its path is printed)
# Needs /usr/bin/python3 with msgpack and zstd for the hostile recipes (as
# .ci/hostile). A run the old binary does not finish within its limit (60 s
# for hostile recipes) is skipped and listed. Exit 0 when every run that
# was compared is identical, else 1.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: $0 OLD_BIN NEW_BIN" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(realpath "${SHARED:-$root/../shared}" 2>/dev/null || echo "")
work=$(mktemp -d "${TMPDIR:-/tmp}/kpack-compare.XXXXXX")
cleanup() {
  umount "$work/hostile/output-partial-file/fs" 2>/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/res"
formats=(text json sarif markdown github)
runs=0 same=0 n=0
skipped=() differ=()

# normalise FILE OUTDIR: temporary paths become placeholders.
normalise() {
  sed -e "s#$2#@OUT@#g" -e "s#$work#@WORK@#g" -e "s#$root#@ROOT@#g" "$1"
}

# one BIN TAG CWD LIMIT ARGS...: runs BIN in CWD under a time limit with
# @OUT@ in ARGS replaced by its own output folder; records rc and time.
one() {
  local bin=$1 tag=$2 cwd=$3 limit=$4
  shift 4
  local out=$work/out/$n.$tag
  mkdir -p "$out"
  local args=()
  for a in "$@"; do args+=("${a//@OUT@/$out}"); done
  local t0 t1
  t0=$(date +%s.%N)
  # (the braces keep bash's "Killed" job message of a timed-out run off stderr)
  { (cd "$cwd" && exec timeout -s KILL "$limit" "$bin" "${args[@]}") >"$work/res/$n.$tag.out" 2>"$work/res/$n.$tag.err"; } 2>/dev/null
  echo $? >"$work/res/$n.$tag.rc"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$work/res/$n.$tag.time"
}

# same_results: compares the old and new results of run $n.
same_results() {
  local o=$work/out/$n.old w=$work/out/$n.new k f
  for k in out err; do
    cmp -s <(normalise "$work/res/$n.old.$k" "$o") <(normalise "$work/res/$n.new.$k" "$w") || return 1
  done
  cmp -s "$work/res/$n.old.rc" "$work/res/$n.new.rc" || return 1
  (cd "$o" && find . -type f | sort) >"$work/res/$n.old.files"
  (cd "$w" && find . -type f | sort) >"$work/res/$n.new.files"
  cmp -s "$work/res/$n.old.files" "$work/res/$n.new.files" || return 1
  while read -r f; do
    cmp -s <(normalise "$o/$f" "$o") <(normalise "$w/$f" "$w") || return 1
  done <"$work/res/$n.old.files"
  return 0
}

# case NAME [-C DIR] [-t LIMIT] -- ARGS...: runs both binaries and
# compares. With -t the old binary's limit is LIMIT seconds and a run over
# it is skipped (the new binary then does not run).
case_() {
  local name=$1 cwd=$root limit=600 hostile=0
  shift
  while [ "$1" != -- ]; do
    case $1 in
      -C) cwd=$2; shift 2 ;;
      -t) limit=$2 hostile=1; shift 2 ;;
    esac
  done
  shift
  n=$((n + 1))
  printf '%s\t%s\t%s\n' "$n" "$name" "$*" >>"$work/res/commands"
  one "$old" old "$cwd" "$limit" "$@"
  local rc
  rc=$(cat "$work/res/$n.old.rc")
  if [ "$hostile" = 1 ] && { [ "$rc" = 137 ] || [ "$rc" = 124 ]; }; then
    skipped+=("$name: the old binary took more than ${limit} s")
    rm -rf "$work/out/$n.old"
    return
  fi
  one "$new" new "$cwd" 600 "$@"
  runs=$((runs + 1))
  if same_results; then
    same=$((same + 1))
  else
    differ+=("$name (run $n: kpack-lint $*; exit $rc -> $(cat "$work/res/$n.new.rc"))")
    echo "DIFFERENT $name: kpack-lint $*" >&2
    diff <(normalise "$work/res/$n.old.err" "$work/out/$n.old") <(normalise "$work/res/$n.new.err" "$work/out/$n.new") | head -5 >&2
    diff <(normalise "$work/res/$n.old.out" "$work/out/$n.old") <(normalise "$work/res/$n.new.out" "$work/out/$n.new") | head -10 >&2
  fi
  rm -rf "$work/out/$n.old" "$work/out/$n.new"
  [ "${KEEP:-0}" = 1 ] || rm -f "$work/res/$n".*.{out,err}
}

# formats_ NAME [-C DIR] [-t LIMIT] -- ARGS...: case_ in every format.
formats_() {
  local name=$1
  shift
  local pre=()
  while [ "$1" != -- ]; do pre+=("$1"); shift; done
  shift
  local f
  for f in "${formats[@]}"; do
    case_ "$name [$f]" "${pre[@]}" -- "${@:1:1}" --format "$f" "${@:2}"
  done
}

cd "$root" || exit 2
ex=testdata/example

echo "== check: the example build, every variant, loader and mode"
for v in release asan; do
  formats_ "example $v" -- check --policy policies.yaml --variant "$v" $ex
  formats_ "example $v legacy" -- check --policy policies.yaml --variant "$v" --loader legacy $ex
  formats_ "example $v deep" -- check --deep --policy policies.yaml --variant "$v" $ex
  formats_ "example $v fail-on note" -- check --policy policies.yaml --variant "$v" --fail-on note $ex
done
formats_ "example no policy" -- check --no-policy $ex
formats_ "example discovered policy" -- check $ex
formats_ "example --target" -- check --no-policy --target gfx942 --target gfx1151 $ex
formats_ "example --agent" -- check --no-policy --agent gfx942:sramecc+:xnack- --agent gfx90a:sramecc-:xnack+ $ex
formats_ "example env" -- check --policy policies.yaml --env ROCM_KPACK_PATH_PREFIX=lib/.kpack/x_@GFXARCH@.kpack $ex
formats_ "example two inputs" -- check --policy policies.yaml --variant asan $ex/lib $ex/bin
formats_ "example path prefix" -- check --policy policies.yaml --variant asan --path-prefix build/dist $ex
formats_ "example from inside (.)" -C "$root/$ex" -- check --no-policy .
formats_ "example . and another" -C "$root/$ex" -- check --no-policy . ../example
formats_ "example . then a scenario" -C "$root/$ex" -- check --no-policy . ../scenarios/torch-gfx90a-split/tree
case_ "example colour" -- check --policy policies.yaml --variant asan --color always $ex
case_ "example all outputs" -- check --policy policies.yaml --variant asan -q -o @OUT@/r.sarif -o @OUT@/r.json -o @OUT@/r.md -o text=@OUT@/r.txt -o github=@OUT@/r.gh $ex
case_ "example output and stdout" -- check --policy policies.yaml --variant asan --format json -o @OUT@/r.sarif $ex
case_ "example output -" -- check --policy policies.yaml --variant asan -o sarif=- -o @OUT@/r.json $ex

echo "== check: the nightly gate (shards, merge, baseline, waivers)"
gate=$work/gate
mkdir -p "$gate"
printf -- '- {rule: KPL003, group: fft_test, reason: known, expires: 2999-01-01}\n- {rule: KPL004, group: fft_test, reason: old, expires: 2000-01-01}\n- {group: torch, reason: unused}\n' >"$gate/w.yaml"
for f in json sarif; do
  for s in 1/2 2/2; do
    "$old" check --policy policies.yaml --variant asan --shard "$s" -q -o "$gate/s${s%/*}.$f" $ex
  done
  "$old" check --policy policies.yaml --variant asan -q -o "$gate/base.$f" $ex
  for s in 1/2 2/2 1/3; do
    formats_ "shard $s ($f)" -- check --policy policies.yaml --variant asan --shard "$s" $ex
  done
  formats_ "merge $f" -- merge --policy policies.yaml --variant asan "$gate/s1.$f" "$gate/s2.$f"
  case_ "merge $f default format" -- merge --policy policies.yaml --variant asan "$gate/s1.$f" "$gate/s2.$f"
  case_ "merge $f without the check's variant" -- merge "$gate/s1.$f" "$gate/s2.$f"
  case_ "merge $f one shard" -- merge "$gate/s1.$f"
  case_ "merge $f twice" -- merge "$gate/s1.$f" "$gate/s1.$f"
  case_ "merge $f not a shard" -- merge "$gate/base.$f"
  formats_ "baseline $f" -- check --policy policies.yaml --variant release --baseline "$gate/base.$f" $ex
  formats_ "baseline $f fail-on-baseline" -- check --policy policies.yaml --variant asan --baseline "$gate/base.$f" --fail-on-baseline $ex
  formats_ "baseline $f waivers" -- check --policy policies.yaml --variant release --baseline "$gate/base.$f" --waivers "$gate/w.yaml" --today 2026-01-01 --path-prefix build/dist $ex
  formats_ "baseline $f kernel loss" -- check --policy policies.yaml --variant asan --baseline "$gate/base.$f" --max-kernel-loss 0 $ex
done
formats_ "waivers" -- check --policy policies.yaml --variant asan --waivers "$gate/w.yaml" --today 2026-01-01 $ex
formats_ "waivers sharded" -- check --policy policies.yaml --variant asan --waivers "$gate/w.yaml" --today 2026-01-01 --shard 1/2 $ex
case_ "merge a non-report" -- merge policies.yaml
case_ "merge missing" -- merge "$gate/none.json"

echo "== check: testdata/scenarios, testdata/kerneldb, testdata/upstream"
# scenario_runs DIR: one line per run of DIR/expect.json: its args, "--",
# its inputs, separated by US (0x1f).
scenario_runs() {
  /usr/bin/python3 - "$1" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1] + "/expect.json"))["runs"]:
    print("\x1f".join(r.get("args", []) + ["--"] + r.get("inputs", ["tree"])))
EOF
}
# scenario NAME DIR CWD: every run of DIR/expect.json, in every format,
# with and without --deep.
scenario() {
  local name=$1 dir=$2 cwd=$3 line
  while IFS= read -r line; do
    local parts=() args=() inputs=() seen=0 p
    IFS=$'\x1f' read -r -a parts <<<"$line"
    for p in "${parts[@]}"; do
      if [ "$p" = -- ]; then seen=1; elif [ $seen = 0 ]; then args+=("$p"); else inputs+=("$dir/$p"); fi
    done
    local pol=(--no-policy)
    [ -f "$dir/policies.yaml" ] && pol=(--policy "$dir/policies.yaml")
    formats_ "$name ${args[*]}" -C "$cwd" -- check "${pol[@]}" "${args[@]}" "${inputs[@]}"
    formats_ "$name ${args[*]} deep" -C "$cwd" -- check --deep "${pol[@]}" "${args[@]}" "${inputs[@]}"
  done < <(scenario_runs "$dir")
}
for d in testdata/scenarios/*/; do
  scenario "scenario $(basename "$d")" "$root/${d%/}" "$root"
done
for d in testdata/kerneldb/*/; do
  d=${d%/}
  inputs=("$d/tree")
  [ -d "$d/tree" ] || inputs=("$d/base" "$d/gfx1100")
  formats_ "kerneldb $(basename "$d")" -- check --policy "$d/policies.yaml" "${inputs[@]}"
  formats_ "kerneldb $(basename "$d") deep" -- check --deep --policy "$d/policies.yaml" "${inputs[@]}"
done
formats_ "upstream" -- check --no-policy testdata/upstream
formats_ "upstream deep" -- check --no-policy --deep --target gfx942 testdata/upstream

echo "== the golden commands (internal/cli TestGolden, TestKernelDBGolden)"
golden_cases=(
  "seed-asan|--policy testdata/scenarios/seed-fft-asan/policies.yaml --variant asan testdata/scenarios/seed-fft-asan/tree"
  "seed-asan-legacy|--policy testdata/scenarios/seed-fft-asan/policies.yaml --variant asan --loader legacy testdata/scenarios/seed-fft-asan/tree"
  "torch-gfx90a|--no-policy --target gfx90a testdata/scenarios/torch-gfx90a-split/tree"
  "example-asan|--policy policies.yaml --variant asan testdata/example"
  "example-release|--policy policies.yaml --variant release testdata/example"
  "example-release-deep|--deep --policy policies.yaml --variant release testdata/example"
  "therock-5179|--policy testdata/kerneldb/therock-5179/policies.yaml testdata/kerneldb/therock-5179/tree"
)
for c in "${golden_cases[@]}"; do
  read -r -a args <<<"${c#*|}"
  for f in sarif text json; do
    case_ "golden ${c%%|*} [$f]" -C "$root/internal/cli" -- check --format "$f" --fail-on none $(printf '%s\n' "${args[@]}" | sed 's#^testdata/#../../testdata/#; s#^policies.yaml#../../policies.yaml#')
  done
done
case_ "golden explain-db-7645" -C "$root/internal/cli" -- explain-db --agent gfx90a:sramecc+:xnack- lib/librocblas.so.5 ../../testdata/kerneldb/rocm-systems-7645/tree

echo "== shared scenarios"
if [ -n "$shared" ] && [ -d "$shared/fixtures" ]; then
  for d in "$shared"/fixtures/scenarios*/*/; do
    [ -f "$d/expect.json" ] || continue
    scenario "shared $(basename "$(dirname "$d")")/$(basename "$d")" "${d%/}" "${d%/}"
  done
else
  skipped+=("shared scenarios: no ../shared")
fi

echo "== explain, explain-db, rules and usage"
for f in text json; do
  case_ "explain policy variant [$f]" -- explain --format "$f" --policy policies.yaml --variant asan 'bin/rocfft-test#0-2' $ex
  case_ "explain agent [$f]" -- explain --format "$f" --no-policy --agent gfx942:sramecc+:xnack- 'lib/librocblas.so.5#0' $ex
  case_ "explain no-generic legacy [$f]" -- explain --format "$f" --no-policy --no-generic --loader legacy --agent gfx950:sramecc+:xnack+ 'bin/rocfft-test#0' $ex
  case_ "explain search [$f]" -- explain --format "$f" --no-policy --agent gfx942:sramecc+:xnack- --search '.kpack/blas_lib_@GFXARCH@.kpack' 'lib/librocblas.so.5#1' $ex/lib
  case_ "explain env [$f]" -- explain --format "$f" --no-policy --agent gfx942:sramecc+:xnack- --env ROCM_KPACK_DISABLE=1 'lib/librocblas.so.5#0' $ex
  case_ "explain discovered policy [$f]" -- explain --format "$f" 'lib/librocsparse.so.1#0' $ex
  case_ "explain upstream [$f]" -- explain --format "$f" --no-policy --agent gfx942:sramecc+:xnack- --search test_zstd.kpack 'kernel_a#0' testdata/upstream
  case_ "explain generic agent [$f]" -- explain --format "$f" --no-policy --agent gfx942:sramecc+:xnack- --agent gfx9-4-generic 'lib/librocblas.so.5#0' $ex
  case_ "explain non-device agent [$f]" -- explain --format "$f" --no-policy --agent gfx900 'lib/librocblas.so.5#0' $ex
  case_ "explain policy agents default variant [$f]" -- explain --format "$f" --policy policies.yaml 'lib/librocsparse.so.1#0-3' $ex
  case_ "explain deep memory [$f]" -- explain --format "$f" --no-policy --agent gfx942:sramecc+:xnack- --deep-memory 1 'lib/librocblas.so.5#0' $ex
done
for c in "bin/x#0" "nokey" "x#3-1" "x#0-99999" "lib/librocblas.so#0" "bin/rocfft#0"; do
  case_ "explain key $c" -- explain --no-policy --agent gfx942:sramecc+:xnack- "$c" $ex
done
case_ "explain bad loader" -- explain --loader newest --no-policy --agent gfx942:sramecc+:xnack- 'lib/librocblas.so.5#0' $ex
case_ "explain bad format" -- explain --format sarif --no-policy --agent gfx942:sramecc+:xnack- 'lib/librocblas.so.5#0' $ex
case_ "explain no agent" -- explain --no-policy 'lib/librocblas.so.5#0' $ex
case_ "explain generic first" -- explain --no-policy --agent gfx9-generic 'lib/librocblas.so.5#0' $ex
case_ "explain bad agent" -- explain --no-policy --agent gfx9999 'lib/librocblas.so.5#0' $ex
case_ "explain bad variant" -- explain --policy policies.yaml --variant tsan 'lib/librocblas.so.5#0' $ex
case_ "explain bad variant with agent" -- explain --policy policies.yaml --variant tsan --agent gfx942:sramecc+:xnack- 'lib/librocblas.so.5#0' $ex
case_ "explain binary" -- explain --no-policy --agent gfx942:sramecc+:xnack- --binary lib/none.so 'lib/librocblas.so.5#0' $ex
case_ "explain no args" -- explain
case_ "explain flags after" -- explain 'lib/librocblas.so.5#0' $ex --agent gfx942
# The commands the text reports print (explain: and rule: lines), run as printed.
for args in "--policy policies.yaml --variant asan $ex" "--policy policies.yaml --variant release --deep $ex" \
  "--no-policy --target gfx90a testdata/scenarios/torch-gfx90a-split/tree" \
  "--policy testdata/scenarios/seed-fft-asan/policies.yaml --variant asan --loader legacy testdata/scenarios/seed-fft-asan/tree"; do
  # shellcheck disable=SC2086
  "$old" check $args 2>/dev/null | sed -n 's/^  \(explain\|rule\): kpack-lint //p' | sort -u | while IFS= read -r cmd; do echo "$cmd"; done >"$work/printed"
  while IFS= read -r cmd; do
    eval "printed=($cmd)"
    # shellcheck disable=SC2154
    case_ "printed: $cmd" -- "${printed[@]}"
  done <"$work/printed"
done

kdb=testdata/kerneldb
for f in text json; do
  case_ "explain-db rocblas [$f]" -- explain-db --format "$f" --agent gfx90a:sramecc+:xnack- rocblas $kdb/rocm-systems-7645/tree
  case_ "explain-db hipblaslt two inputs [$f]" -- explain-db --format "$f" --agent gfx1100 hipblaslt $kdb/therock-5478/base $kdb/therock-5478/gfx1100
  case_ "explain-db miopen cu [$f]" -- explain-db --format "$f" --agent gfx942:sramecc+:xnack- --cu 304 --cu 228 miopen $kdb/miopen/tree
  case_ "explain-db miopen-1651 [$f]" -- explain-db --format "$f" --agent gfx90a:sramecc+:xnack- miopen $kdb/miopen-1651/tree
  case_ "explain-db deep [$f]" -- explain-db --format "$f" --deep --agent gfx942:sramecc+:xnack- rocblas $kdb/rocblas-flat-lazy/tree
  case_ "explain-db 5179 [$f]" -- explain-db --format "$f" --agent gfx90a:sramecc+:xnack- --agent gfx1100 rocblas $kdb/therock-5179/tree
  case_ "explain-db env [$f]" -- explain-db --format "$f" --agent gfx942:sramecc+:xnack- --env ROCBLAS_TENSILE_LIBPATH=lib/none rocblas $kdb/rocblas-per-arch/tree
done
case_ "explain-db not a library" -- explain-db --agent gfx942:sramecc+:xnack- libfoo.so $kdb/rocblas-per-arch/tree
case_ "explain-db generic agent" -- explain-db --agent gfx9-generic rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db non-device agent" -- explain-db --agent gfx942 rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db bad agent" -- explain-db --agent gfx9999 rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db bad env" -- explain-db --agent gfx942:sramecc+:xnack- --env HSA_XNACK=1 rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db absolute env" -- explain-db --agent gfx942:sramecc+:xnack- --env ROCBLAS_TENSILE_LIBPATH=/opt/x rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db bad cu" -- explain-db --agent gfx942:sramecc+:xnack- --cu 0 rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db one arg" -- explain-db --agent gfx942:sramecc+:xnack- rocblas
case_ "explain-db no agent" -- explain-db rocblas $kdb/rocblas-per-arch/tree
case_ "explain-db bad format" -- explain-db --format sarif --agent gfx942:sramecc+:xnack- rocblas $kdb/rocblas-per-arch/tree

case_ "rules" -- rules
case_ "rules some" -- rules KPL001 orphan-kernel kpl013
case_ "rules unknown" -- rules KPL099
case_ "rules typo" -- rules unreachable-kernels
case_ "version" -- version
case_ "--version" -- --version
case_ "help" -- --help
case_ "check help" -- check --help
case_ "unknown command" -- lint
for sh in bash zsh fish; do case_ "completion $sh" -- completion "$sh"; done
case_ "completion bad" -- completion tcsh

# Usage errors and unreadable inputs (internal/cli tests and the error paths).
while IFS= read -r line; do
  [ -n "$line" ] || continue
  read -r -a args <<<"$line"
  case_ "usage: $line" -- "${args[@]}"
done <<EOF
check
check testdata/does-not-exist
check --format xml $ex
check --fail-on fatal $ex
check --loader newest $ex
check --policy policies.yaml --variant tsan $ex
check --policy nope.yaml $ex
check --no-policy --agent gfx1100:xnack+ $ex
check --no-policy --agent gfx9-generic $ex
check --no-policy --agent gfx942 $ex
check --no-policy --agent gfx9999 $ex
check --no-policy --target gfx9999 $ex
check --no-policy --target gfx90c $ex
check --no-policy --target gfx942:xnack+:xnack- $ex
check --target gfx90a testdata/scenarios/torch-gfx90a-split/tree
check --frobnicate $ex
check $ex --target gfx90a
check --deep-memory 0 $ex
check --deep-memory 99999999999999 $ex
check --shard 3/2 $ex
check --shard x $ex
check --max-kernel-loss 101 $ex
check --baseline none.json $ex
check --baseline policies.yaml $ex
check --fail-on-baseline $ex
check --policy policies.yaml --no-policy $ex
check --quiet $ex
check --color sometimes $ex
check --env NOVALUE $ex
check --env HSA_XNACK=1 $ex
check --env ROCM_KPACK_DISABLE=maybe $ex
check --env ROCBLAS_TENSILE_LIBPATH=/abs $ex
check --today 2026-13-01 $ex
check --waivers none.yaml $ex
check --waivers policies.yaml $ex
check -o r.xyz $ex
check -o sarif= $ex
check --variant asan $ex
check --no-policy testdata/golden
check --no-policy --variant release $ex
merge
merge --fail-on fatal x.json
EOF
printf 'variants: {release: {targets: [gfx90a]}, asan: {targets: [gfx942]}}\n' >"$work/two.yaml"
printf 'version: 1\nrules: {KPL999: {level: off}}\nvariants: {release: {targets: [gfx90a]}}\n' >"$work/unknown-rule.yaml"
printf 'version: 1\nloader: newer\nvariants: {release: {targets: [gfx90a]}}\n' >"$work/bad-loader.yaml"
printf 'version: 1\nvariants: {release: {targets: [gfx90a]}}\ngroups: {nope: {}}\n' >"$work/bad-group.yaml"
printf '' >"$work/empty.yaml"
for p in two unknown-rule bad-loader bad-group empty; do
  case_ "policy $p" -- check --policy "$work/$p.yaml" $ex
done
case_ "policy two, no variant" -- explain --policy "$work/two.yaml" 'lib/librocblas.so.5#0' $ex
case_ "policy subdirectory" -- check --policy policies.yaml $ex/lib
# Two errors at once: which one is reported.
case_ "explain bad policy and missing input" -- explain --policy "$work/bad-loader.yaml" --agent gfx942:sramecc+:xnack- 'lib/x#0' testdata/does-not-exist
case_ "explain bad env and missing input" -- explain --no-policy --env NOVALUE --agent gfx942:sramecc+:xnack- 'lib/x#0' testdata/does-not-exist
case_ "merge bad colour and missing report" -- merge --color sometimes "$gate/none.json"
case_ "check bad colour and missing input" -- check --color sometimes testdata/does-not-exist
mkdir -p "$work/fifo/.kpack" && mkfifo "$work/fifo/.kpack/zz_gfx950.kpack" && cp $ex/lib/librocblas.so.5 "$work/fifo/"
formats_ "a FIFO in the input (.)" -C "$work/fifo" -- check --no-policy --target gfx942 .
formats_ "a FIFO in the input" -- check --no-policy --target gfx942 "$work/fifo"
mkdir -p "$work/empty"
case_ "empty folder" -- check --no-policy "$work/empty"

echo "== hostile recipes (../shared/fixtures/hostile, as .ci/hostile builds them)"
if [ "${HOSTILE:-1}" = 0 ] || [ -z "$shared" ] || [ ! -d "$shared/fixtures/hostile" ]; then
  skipped+=("hostile recipes: not run (HOSTILE=0 or no ../shared)")
else
  h=$work/hostile
  cp -r "$shared/fixtures/hostile" "$h" && chmod -R u+w "$h"
  py=/usr/bin/python3
  (
    cd "$h" || exit 1
    (cd baseline-amplify && $py make.py t 300000)
    (cd baseline-header-controls && $py make.py t)
    (cd ccob-many-bundles && $py make.py t 32000)
    (cd deep-bysize-hang && $py make.py tree 2000)
    (cd deep-codeobj-shstrtab-bomb && $py make.py t 0.25)
    (cd deep-none-blob-1g && $py make.py noneblob.tar.zst)
    (cd deep-window-bypass && $py make.py big a8 && $py make.py small 38)
    (cd dynamic-zstd-bomb && $py make.py t 0.25)
    (cd env-path-repeat && $py make.py t 180000 12000)
    (cd explain-terminal-injection && $py make.py tree)
    (cd explain-zstd-bomb-rss && $py make.py tree)
    (cd fifo-toctou-hang && bash make.sh tree)
    (cd fuzz-tarindex-unexpected-eof && $py make_cut.py)
    (cd github-hint-controls && $py make.py t)
    (cd hardlink-archives && $py make.py t 200000 40 && $py make_tar.py tz 200000 40)
    (cd long-kernel-name-keys && $py make.py t 65000 8192 && $py make.py t2 65000 2048)
    (cd nobits-fatbin-memory && $py make.py tree 20)
    (cd pe-shared-relocs && $py make.py t 1000)
    (cd policy-alias-laughs && $py make.py t 200 200)
    (cd policy-template-doubling && bash make.sh)
    (cd rela-zstd-bomb && $py make.py t 12)
    (cd tarzst-duplicate-reread && $py make.py dups.tar.zst 20000)
    (cd toc-keys-memory && $py make.py tree 200000 && $py make.py tree1m 1000000)
    (cd toc-keys-quadratic && $py make.py t20000 20000)
    (cd waiver-glob-quadratic && $py make.py t 65000 32500 24)
    (cd zip-million-members && $py make.py t 1000000)
  ) >"$work/hostile-build.log" 2>&1 || echo "some recipes did not build (see $work/hostile-build.log)" >&2
  H() { case_ "hostile $1" -C "$h" -t 60 -- "${@:2}"; }
  HF() { local name=$1; shift; local f; for f in "${formats[@]}"; do H "$name [$f]" "${@:1:1}" --format "$f" "${@:2}"; done; }
  H baseline-amplify check --no-policy --baseline baseline-amplify/t/base.json baseline-amplify/t/tree
  H baseline-amplify-merge merge baseline-amplify/t/base.json
  HF baseline-header-controls check --no-policy --baseline baseline-header-controls/t/evil-baseline.json baseline-header-controls/t/tree
  H ccob-many-bundles check --no-policy --target gfx942 ccob-many-bundles/t
  H deep-bysize-hang check --deep deep-bysize-hang/tree
  H deep-codeobj-shstrtab-bomb check --deep --no-policy deep-codeobj-shstrtab-bomb/t
  H deep-codeobj-shstrtab-bomb-explain explain --no-policy --agent gfx942:sramecc+:xnack- 'bin/x#0' deep-codeobj-shstrtab-bomb/t
  H deep-none-blob-1g check --deep deep-none-blob-1g/noneblob.tar.zst
  H deep-window-bypass-big check --deep deep-window-bypass/big
  H deep-window-bypass-small check --deep deep-window-bypass/small
  H dynamic-zstd-bomb check --no-policy --target gfx942 dynamic-zstd-bomb/t
  H env-path-repeat check env-path-repeat/t
  H explain-terminal-injection explain --agent gfx950:sramecc+:xnack+ 'bin/x#0' explain-terminal-injection/tree
  H explain-terminal-injection-json explain --format json --agent gfx950:sramecc+:xnack+ 'bin/x#0' explain-terminal-injection/tree
  H explain-zstd-bomb-rss explain --agent gfx950:sramecc+:xnack+ --search '.kpack/g_@GFXARCH@.kpack' 'bin/x#0' explain-zstd-bomb-rss/tree
  # fifo-toctou-hang swaps a FIFO in during the walk (a race by design);
  # here the FIFO is in place before the run, which is deterministic.
  rm -f "$h/fifo-toctou-hang/tree/.kpack/zz_gfx950.kpack" && mkfifo "$h/fifo-toctou-hang/tree/.kpack/zz_gfx950.kpack"
  H fifo-toctou-hang check fifo-toctou-hang/tree
  H fuzz-tarindex-cut check fuzz-tarindex-unexpected-eof/cut.tar.gz
  H fuzz-tarindex-fuzz check fuzz-tarindex-unexpected-eof/fuzz.tar.gz
  H fuzz-tarindex-fuzz-tar check fuzz-tarindex-unexpected-eof/fuzz.tar
  HF github-hint-controls check --no-policy github-hint-controls/t
  H hardlink-archives check --no-policy hardlink-archives/t
  H hardlink-archives-tar check --no-policy hardlink-archives/tz/hl.tar.zst
  H long-kernel-name-keys check --no-policy long-kernel-name-keys/t
  H long-kernel-name-keys-json check --no-policy --format json long-kernel-name-keys/t2
  H nobits-fatbin-memory check nobits-fatbin-memory/tree
  H pe-shared-relocs check --no-policy pe-shared-relocs/t
  H policy-alias-laughs check --policy policy-alias-laughs/t/policies.yaml "$root/$ex"
  H policy-error-unescaped check --policy policy-error-unescaped/bad.yaml "$root/$ex"
  H policy-template-doubling check --policy policy-template-doubling/double.yaml "$root/$ex"
  H rela-zstd-bomb check --no-policy --target gfx942 rela-zstd-bomb/t
  H tarzst-duplicate-reread check tarzst-duplicate-reread/dups.tar.zst
  H toc-keys-memory check --format sarif -o @OUT@/out.sarif toc-keys-memory/tree
  H toc-keys-memory-text check toc-keys-memory/tree
  H toc-keys-memory-1m check toc-keys-memory/tree1m
  H toc-keys-quadratic check -o text=@OUT@/out.txt toc-keys-quadratic/t20000
  H waiver-glob-quadratic check --no-policy --target gfx942 --waivers waiver-glob-quadratic/t/waivers.yaml waiver-glob-quadratic/t/tree
  H zip-million-members check --no-policy zip-million-members/t/many.whl
  mkdir -p "$h/output-partial-file/fs"
  if mount -t tmpfs -o size=64k tmpfs "$h/output-partial-file/fs" 2>/dev/null; then
    H output-partial-file check --quiet -o sarif=output-partial-file/fs/report.txt toc-keys-memory/tree
    umount "$h/output-partial-file/fs"
  else
    skipped+=("hostile output-partial-file: cannot mount a tmpfs here")
  fi
  skipped+=("hostile dynamic-zstd-bomb t4 and pe-shared-relocs t8: run under prlimit they die with a Go goroutine dump (addresses differ run to run)")
  skipped+=("hostile fuzz-verify-fd-leak: a fuzz-harness bug (go test -fuzz), no CLI command")
fi

echo
echo "== summary"
echo "$runs runs compared, $same identical, ${#differ[@]} different, ${#skipped[@]} skipped"
for d in "${differ[@]}"; do echo "different: $d"; done
for s in "${skipped[@]}"; do echo "skipped: $s"; done
[ ${#differ[@]} -eq 0 ]
