#!/usr/bin/env bash
# Times kpack-lint against the upstream rocm-kpack Python reader on the same
# generated builds (internal/testutil/benchtree), paired in one run: wall time, peak
# RSS (/usr/bin/time -v), bytes read (/proc/PID/io read_bytes and rchar),
# with a warm and a cold page cache. See docs/performance.md.
#
#   scripts/bench-vs-python.sh --upstream PATH [--work DIR] [--runs N]
#                              [--shapes "single therock"] [--scale F] [--extras]
#                              [--evict fadvise|drop_caches]
#
# --upstream  a checkout or a git directory (e.g. a `git clone --mirror`) of
#             ROCm/rocm-kpack (python/rocm_kpack/) or ROCm/rocm-systems
#             (shared/kpack/python/rocm_kpack/). Its kpack.py and
#             compression.py are copied into a temporary folder, deleted
#             afterwards; nothing is downloaded.
# --work      keep the generated trees, runs.jsonl and results.md there
#             (default: a temporary folder, deleted; the full trees take
#             ~1.7 GB and ~25 s to generate, so keep them between runs; in
#             the repository only bench-work/ is git-ignored)
# --runs      measured runs per cell (default 3; medians are reported)
# --shapes    benchtree shapes to compare (default "single therock")
# --scale     benchtree -scale (default 1: the sizes of issue 9)
# --extras    also: TOC parse speed (Go benchmark vs msgpack.unpackb),
#             resolver simulations per second per core, per-entry scaling of
#             one group and of an archive-only group (Go benchmarks, whole
#             check and per rule), check --deep on one core against all,
#             and peak RSS per TOC entry (therock at 1/4, 1/2 and 1 x
#             --scale)
# --evict     how cold runs empty the page cache: fadvise (default:
#             posix_fadvise(DONTNEED) on the tree's files only, no privileges
#             needed, other processes undisturbed) or drop_caches (echo 1 >
#             /proc/sys/vm/drop_caches: root, the whole machine's cache, so
#             the interpreter and binaries start cold too)
# Needs Go, /usr/bin/time (apt-get install time) and a python3 with msgpack
# and zstandard (PYTHON, default /usr/bin/python3; Debian: apt-get install
# python3-msgpack python3-zstandard). The report goes to stdout and
# WORK/results.md.
set -euo pipefail

die() { echo "bench-vs-python.sh: $*" >&2; exit 2; }
log() { echo "== $*" >&2; }

upstream="" work="" runs=3 shapes="single therock" scale=1 extras=0 evict_method=fadvise
while [ $# -gt 0 ]; do
  case "$1" in
    --upstream) upstream=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --shapes) shapes=${2:?}; shift 2 ;;
    --scale) scale=${2:?}; shift 2 ;;
    --extras) extras=1; shift ;;
    --evict) evict_method=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
case "$evict_method" in fadvise|drop_caches) ;; *) die "--evict $evict_method: want fadvise or drop_caches" ;; esac
[ -n "$upstream" ] || die "no --upstream PATH: give a checkout or git mirror of ROCm/rocm-kpack or ROCm/rocm-systems (the Python reader is never downloaded)"
[ -e "$upstream" ] || die "--upstream $upstream does not exist"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c 'import msgpack, zstandard' 2>/dev/null ||
  die "$PYTHON lacks msgpack or zstandard (Debian: apt-get install python3-msgpack python3-zstandard)"

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -n "$work" ] || work=$tmp/work
mkdir -p "$work"
work=$(cd "$work" && pwd)
libdir=$(cd "$(dirname "$0")" && pwd)/benchlib

# --- the upstream reader, copied into $tmp/py/rocm_kpack ---------------------
mkdir -p "$tmp/py/rocm_kpack"
: > "$tmp/py/rocm_kpack/__init__.py" # upstream's imports the ELF/COFF tools, which reading does not need
reader="" commit=unknown
for sub in python/rocm_kpack shared/kpack/python/rocm_kpack; do
  if [ -f "$upstream/$sub/kpack.py" ]; then # a checkout
    cp "$upstream/$sub/kpack.py" "$upstream/$sub/compression.py" "$tmp/py/rocm_kpack/"
    commit=$(git -C "$upstream" rev-parse HEAD 2>/dev/null || echo unknown)
    reader="$upstream/$sub"
    break
  fi
  if git --git-dir="$upstream" cat-file -e "HEAD:$sub/kpack.py" 2>/dev/null; then # a git directory
    for f in kpack.py compression.py; do
      git --git-dir="$upstream" show "HEAD:$sub/$f" > "$tmp/py/rocm_kpack/$f"
    done
    commit=$(git --git-dir="$upstream" rev-parse HEAD)
    reader="$upstream:$sub"
    break
  fi
done
[ -n "$reader" ] || die "$upstream holds neither python/rocm_kpack/kpack.py nor shared/kpack/python/rocm_kpack/kpack.py"
log "upstream reader: $reader @ $commit"
export PYTHONPATH=$tmp/py
pyreader=$libdir/python_reader.py

# --- tools and trees -----------------------------------------------------------
log "building kpack-lint and benchtree"
(cd "$repo" && go build -o "$tmp/bin/kpack-lint" ./cmd/kpack-lint && go build -o "$tmp/bin/benchtree" ./internal/testutil/cmd/benchtree)
lint=$tmp/bin/kpack-lint
benchtree=$tmp/bin/benchtree

gen() { "$benchtree" gen -root "$work" -shape "$1" -scale "${2:-$scale}"; }
# manifest DIR FIELD prints a field of DIR/benchtree.json.
manifest() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1] + "/benchtree.json"))[sys.argv[2]])' "$1" "$2"; }

# --- page cache ------------------------------------------------------------------
# evict DIR drops DIR's files from the page cache (see --evict).
evict() {
  sync
  if [ "$evict_method" = drop_caches ]; then
    (echo 1 > /proc/sys/vm/drop_caches) 2>/dev/null || die "cannot write /proc/sys/vm/drop_caches (not root?): use --evict fadvise"
  else
    "$benchtree" evict "$1"
  fi
}

# evict_archives DIR drops only the .kpack files of DIR's tree from the page
# cache (posix_fadvise whatever --evict says): what a run then reads from
# disk is what it reads of the archives.
evict_archives() {
  sync
  find "$1/tree" -type f -name '*.kpack' -print0 | xargs -0 "$benchtree" evict > /dev/null
}

# --- one measured run --------------------------------------------------------------
# measure OUT TOOL JSON CMD... runs CMD under /usr/bin/time -v in a bash that
# reads its own /proc/PID/io after reaping CMD (the kernel adds a reaped
# child's I/O counters to its parent's), and appends to OUT one JSON line:
# JSON's fields, tool, seconds (bash's $EPOCHREALTIME around CMD), rss_kb,
# read_bytes, rchar and, for the Python reader, its in-process seconds.
measure() {
  local out=$1 tool=$2 fields=$3 rc
  shift 3
  /usr/bin/time -v -o "$tmp/run.time" bash -c '
    s=$EPOCHREALTIME; "$@" > "$0.out" 2> "$0.err"; rc=$?; e=$EPOCHREALTIME
    echo "$s $e" > "$0.wall"; cat /proc/$$/io > "$0.io"; exit $rc' "$tmp/run" "$@" || true
  rc=$(sed -n 's/.*Exit status: //p' "$tmp/run.time")
  if { [ "$tool" = kpack-lint ] && [ "$rc" -gt 1 ]; } || { [ "$tool" = python ] && [ "$rc" -ne 0 ]; }; then
    cat "$tmp/run.err" >&2
    die "$tool: $*: exit $rc"
  fi
  "$PYTHON" "$libdir/record.py" "$tmp/run" "$tool" "$fields" >> "$out"
}

# pair CASE DIR: kpack-lint `check` and `check --deep` against the Python
# reader (toc, deep), warm then cold cache, $runs runs each, alternating;
# `check` also with only the archives cold (cold-archives: the bytes it
# reads from disk are archive bytes).
results=$work/runs.jsonl
: > "$results"
pair() {
  local case=$1 dir=$2 mode cache i fields
  local tree=$dir/tree policy=$dir/policies.yaml archive_bytes
  archive_bytes=$(manifest "$dir" ArchiveBytes)
  for mode in toc deep; do
    local flags=()
    [ "$mode" = deep ] && flags=(--deep)
    local caches=(warm cold)
    [ "$mode" = toc ] && caches+=(cold-archives)
    for cache in "${caches[@]}"; do
      log "$case $mode $cache"
      fields="{\"case\": \"$case\", \"mode\": \"$mode\", \"cache\": \"$cache\", \"archive_bytes\": $archive_bytes}"
      if [ "$cache" = warm ]; then # fill the cache
        "$lint" check "${flags[@]}" --policy "$policy" "$tree" > /dev/null || true
        "$PYTHON" "$pyreader" "$mode" "$tree" > /dev/null
      fi
      for i in $(seq "$runs"); do
        if [ "$cache" = cold ]; then evict "$dir"; fi
        if [ "$cache" = cold-archives ]; then evict_archives "$dir"; fi
        measure "$results" kpack-lint "$fields" "$lint" check "${flags[@]}" --policy "$policy" "$tree"
        if [ "$cache" = cold ]; then evict "$dir"; fi
        if [ "$cache" = cold-archives ]; then evict_archives "$dir"; fi
        measure "$results" python "$fields" "$PYTHON" "$pyreader" "$mode" "$tree"
      done
    done
  done
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A dirs
for shape in $shapes; do
  log "generating $shape (scale $scale)"
  dirs[$shape]=$(gen "$shape")
done
first=${dirs[${shapes%% *}]}
evict "$first"
left=$("$benchtree" resident "$first")
log "page-cache eviction: $evict_method; after it, $first has $left"

for shape in $shapes; do pair "$shape" "${dirs[$shape]}"; done

# --- extras ----------------------------------------------------------------------
extras_out=$work/extras.jsonl
: > "$extras_out"
gobench() { # gobench PATTERN [go test flags]: benchmark lines of internal/testutil/benchtree
  local pat=$1
  shift
  (cd "$repo" && KPACK_BENCH_DIR=$work KPACK_BENCH_SCALE=$scale KPACK_BENCH_BIG=1 go test ./internal/testutil/benchtree -run '^$' -bench "$pat" "$@") |
    sed -n 's/^Benchmark/gobench Benchmark/p' >> "$extras_out"
}
if [ "$extras" = 1 ]; then
  # the benchmarks find the trees generated above (KPACK_BENCH_DIR, _SCALE)
  log "TOC parse: Go kpack.Open vs Python msgpack.unpackb"
  for shape in $shapes; do
    "$PYTHON" "$pyreader" tocparse "${dirs[$shape]}/tree" |
      sed "s/^{/{\"extra\": \"tocparse\", \"case\": \"$shape\", /" >> "$extras_out"
  done
  # -count: the report takes each metric's median over the repeats
  gobench 'TOCParse' -benchtime 5x -count 5
  log "zstd decoding alone: kpack.FrameDecoder (klauspost/compress) vs the reader's libzstd, same frames"
  for shape in $shapes; do
    "$PYTHON" "$pyreader" zstd "${dirs[$shape]}/tree" |
      sed "s/^{/{\"extra\": \"zstd\", \"case\": \"$shape\", /" >> "$extras_out"
  done
  gobench 'ZstdFrames' -cpu 1 -benchtime 3x -count 3
  log "resolver simulations per second per core"
  gobench 'Simulate' -cpu 1 -benchtime 3x -count 3
  log "per-entry scaling (one group of N binaries; an archive-only group of N names), whole check and per rule"
  gobench 'GroupScaling|ArchiveOnly' -benchtime 2s -count 3
  gobench 'RuleScaling' -benchtime 1s -count 5
  log "check --deep on one core and on all ($(nproc)), alternating"
  for shape in $shapes; do
    d=${dirs[$shape]}
    for i in $(seq "$runs"); do
      for procs in 1 "$(nproc)"; do
        GOMAXPROCS=$procs measure "$extras_out" kpack-lint "{\"extra\": \"speedup\", \"case\": \"$shape\", \"procs\": $procs}" \
          "$lint" check --deep --policy "$d/policies.yaml" "$d/tree"
      done
    done
  done
  log "peak RSS per TOC entry (therock at 1/4, 1/2 and 1 times --scale)"
  for f in 0.25 0.5 1; do
    d=$(gen therock "$("$PYTHON" -c "print($f * $scale)")")
    for flags in "" "--deep" "--deep --deep-memory 64"; do
      # shellcheck disable=SC2086 # flags are words
      measure "$extras_out" kpack-lint "{\"extra\": \"rss\", \"flags\": \"$flags\", \"entries\": $(manifest "$d" Entries)}" \
        "$lint" check $flags --policy "$d/policies.yaml" "$d/tree"
    done
  done
fi

# --- report ----------------------------------------------------------------------
load="$load_start -> $(cut -d' ' -f1-3 /proc/loadavg)"
"$PYTHON" "$libdir/report.py" "$results" "$extras_out" "$commit" "$evict_method" "$left" "$scale" "$load" > "$work/results.md"
cat "$work/results.md"
log "results: $work/results.md"
