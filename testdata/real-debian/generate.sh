#!/usr/bin/env bash
# Regenerates the ground truth of this folder (*.gt.json) from LLVM's own
# tools. Not run in CI: CI compares kpack-lint with these files only
# (internal/testutil/cmd/realdebian). Needs Debian 12 (apt-get, dpkg-deb),
# python3 and LLVM 15's tools:
#
#   apt-get install clang-tools-15 llvm-15     # 1:15.0.6-4+b1 when last run
#   testdata/real-debian/generate.sh WORK      # downloads into WORK, ~3 min, 1.4 GB RSS
#
# It downloads the packages pinned in packages.json with apt-get download,
# checks their size and sha256, extracts them with dpkg-deb -x and runs
# gt.py (clang-offload-bundler --list / --unbundle, llvm-readelf -h --notes)
# on each library the file names.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 WORK" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(realpath -m "$1")
export LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-15/bin}
for tool in clang-offload-bundler llvm-readelf; do
  [ -x "$LLVM_BIN/$tool" ] || { echo "$LLVM_BIN/$tool missing: apt-get install clang-tools-15 llvm-15" >&2; exit 1; }
done
mkdir -p "$WORK/x"
python3 - "$HERE/packages.json" > "$WORK/packages.txt" <<'EOF'
import json, sys
for p in json.load(open(sys.argv[1])):
    for lib in p["libraries"]:
        print(p["package"], p["version"], p["file"], p["sha256"], lib["path"], lib["groundTruth"])
EOF
while read -r pkg ver file sha lib gt; do
  if [ ! -f "$WORK/$file" ]; then
    (cd "$WORK" && apt-get download "$pkg=$ver")
  fi
  echo "$sha  $WORK/$file" | sha256sum -c -
  rm -rf "${WORK:?}/x/$pkg"; mkdir -p "$WORK/x/$pkg"
  dpkg-deb -x "$WORK/$file" "$WORK/x/$pkg"
  python3 "$HERE/gt.py" "$WORK/x/$pkg" "$lib" "$pkg" > "$HERE/$gt"
  echo "wrote $HERE/$gt"
done < "$WORK/packages.txt"
"$LLVM_BIN/clang-offload-bundler" --version | head -1
