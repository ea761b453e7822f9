#!/usr/bin/env bash
# Regenerates the ground truth of this folder (*.gt.json) from LLVM 19's
# tools and rocBLAS 5.5.1's lookup (gt.py). Not run in CI: CI compares
# kpack-lint with these files only (go run ./internal/testutil/cmd/realdebian
# -debian 13). Needs a Debian system (apt-get, dpkg-deb), /usr/bin/python3
# and LLVM 19's clang-offload-bundler and llvm-readobj:
#
#   apt-get install clang-tools-19 llvm-19   # 1:19.1.7-3~deb12u1 when last run
#   testdata/real-debian-13/generate.sh WORK # downloads ~770 MB into WORK, ~5 GB extracted
#
# Trixie's package lists live in WORK/apt (a private apt state whose one
# source is trixie main on the mirror the system's own sources name; the
# system's apt configuration is not touched). The packages pinned in
# packages.json are downloaded by name and version, checked by size and
# sha256, extracted with dpkg-deb -x and given to gt.py.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 WORK" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(realpath -m "$1")
export LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-19/bin}
for tool in clang-offload-bundler llvm-readobj; do
  [ -x "$LLVM_BIN/$tool" ] || { echo "$LLVM_BIN/$tool missing: apt-get install clang-tools-19 llvm-19" >&2; exit 1; }
done
URI=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$URI" ] || URI=$(awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' /etc/apt/sources.list)
A=$WORK/apt
mkdir -p "$A"/{lists/partial,cache/archives/partial,state,sources} "$WORK/x"
printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$URI" > "$A/sources/trixie.sources"
cat > "$A/apt.conf" <<CONF
Dir::State "$A/state";
Dir::State::Lists "$A/lists";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "$A/cache";
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$A/sources";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "/dev/null";
APT::Architecture "amd64";
Acquire::Languages "none";
CONF
APT_CONFIG=$A/apt.conf apt-get update -qq
/usr/bin/python3 -c 'import json, sys
for p in json.load(open(sys.argv[1])):
    print(p["package"], p["version"], p["file"], p["size"], p["sha256"], p["groundTruth"])' "$HERE/packages.json" |
while read -r pkg ver file size sha gt; do
  [ -f "$WORK/$file" ] || (cd "$WORK" && APT_CONFIG=$A/apt.conf apt-get download -q "$pkg=$ver")
  [ "$(stat -c %s "$WORK/$file")" = "$size" ] || { echo "$file: not $size bytes" >&2; exit 1; }
  echo "$sha  $WORK/$file" | sha256sum -c -
  rm -rf "${WORK:?}/x/$pkg" && dpkg-deb -x "$WORK/$file" "$WORK/x/$pkg"
  /usr/bin/python3 "$HERE/gt.py" "$WORK/x/$pkg" "$pkg" "$ver" > "$HERE/$gt"
  echo "wrote $HERE/$gt"
done
"$LLVM_BIN/clang-offload-bundler" --version | head -1
