#!/usr/bin/env bash
# The kpack-lint GitHub Action's install step (action.yml): puts a
# kpack-lint binary in $RUNNER_TEMP and writes its path as the step output
# `bin` (and `install=release` or `install=source`). It never changes the
# job's Go, PATH or environment for later steps.
#
# At a release tag (ACTION_REF v1.2.3) it downloads that release's archive
# for this runner with `gh release download` and checks it against the
# release's checksums.txt (sha256); a moving major or minor tag (v1, v1.2)
# takes the newest release under it (v1.x.y, v1.2.y; no drafts or
# prereleases). A checksum that does not match is exit 2. Anywhere else
# (a branch, a commit SHA, `uses: ./`), or when no such release can be
# had, it builds kpack-lint from the action's own checkout
# (GITHUB_ACTION_PATH) with:
#   - the runner's go when it is at least go.mod's go version;
#   - else GOTOOLCHAIN=$toolchain through the runner's go (go 1.21 or newer
#     fetch it into the Go module cache);
#   - else a private toolchain in $RUNNER_TEMP, downloaded from
#     $KPACK_LINT_GO_DL (default https://dl.google.com/go) and checked
#     against its .sha256, called by its full path.
# The log says which path was taken.
#
# Environment: ACTION_REF, ACTION_REPOSITORY (github.action_ref,
# github.action_repository; empty for `uses: ./`), GH_TOKEN (for gh),
# GITHUB_ACTION_PATH, GITHUB_OUTPUT, RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP.
set -euo pipefail

# The toolchain a source build uses when the runner's go is too old.
toolchain=go1.25.14
dl="${KPACK_LINT_GO_DL:-https://dl.google.com/go}"

# clean TEXT: TEXT on one line, each control character shown as \xNN (a
# message cannot start a log line of its own, e.g. a workflow command).
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
die() {
  local msg
  msg="$(clean "$*")"
  echo "::error title=kpack-lint install::${msg//%/%25}"
  echo "kpack-lint action: $msg" >&2
  exit 2
}
log() { echo "kpack-lint action: $(clean "$*")" >&2; }
[ -n "${GITHUB_OUTPUT:-}" ] || die "GITHUB_OUTPUT is not set (run inside GitHub Actions or point it at a file)"
src="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
ref="${ACTION_REF:-}"
repo="${ACTION_REPOSITORY:-}"

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) os="" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | aarch64 | arm64) arch=arm64 ;;
  *) arch="" ;;
esac
exe=""
[ "$os" = windows ] && exe=.exe
out="$temp/kpack-lint-bin"
mkdir -p "$out"
bin="$out/kpack-lint$exe"

sha256() { # FILE: its sha256 in hex
  if command -v sha256sum >/dev/null; then sha256sum "$1" | awk '{print $1}'; else shasum -a 256 "$1" | awk '{print $1}'; fi
}

# release_tag: the release to download for $ref, or nothing (with a log
# line saying why) when this ref has none.
release_tag() {
  if [ -z "$ref" ] || [ -z "$repo" ]; then
    log "the action runs from a local checkout (uses: ./), not a release"
    return 0
  fi
  if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
    echo "$ref"
    return 0
  fi
  if ! [[ "$ref" =~ ^v[0-9]+(\.[0-9]+)?$ ]]; then
    log "$repo@$ref is a branch or commit, not a release tag"
    return 0
  fi
  command -v gh >/dev/null || { log "gh is not installed: cannot list the releases under $ref"; return 0; }
  local tags newest pattern="^${ref//./\\.}\\.[0-9]+\\.[0-9]+$"
  [[ "$ref" == *.* ]] && pattern="^${ref//./\\.}\\.[0-9]+$"   # v1.2 takes v1.2.y
  tags="$(gh release list -R "$repo" --exclude-drafts --exclude-pre-releases --limit 100 --json tagName --jq '.[].tagName')" ||
    { log "gh release list -R $repo failed: cannot resolve $ref"; return 0; }
  newest="$(printf '%s\n' "$tags" | grep -E "$pattern" | sort -V | tail -1 || true)"
  [ -n "$newest" ] || { log "no release of $repo under $ref"; return 0; }
  log "$ref resolves to the newest release under it, $newest"
  echo "$newest"
}

# install_release TAG: downloads and checks TAG's archive into $bin;
# returns 1 (with a log line) when it cannot be downloaded.
install_release() {
  local tag="$1" version="${1#v}" dir archive want got
  if [ -z "$os" ] || [ -z "$arch" ]; then
    log "no release archive for runner ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
    return 1
  fi
  command -v gh >/dev/null || { log "gh is not installed: cannot download release $tag"; return 1; }
  archive="kpack-lint_${version}_${os}_${arch}.tar.gz"
  [ "$os" = windows ] && archive="kpack-lint_${version}_${os}_${arch}.zip"
  dir="$(mktemp -d "$temp/kpack-lint-release.XXXXXX")"
  if ! gh release download "$tag" -R "$repo" -p "$archive" -p checksums.txt -D "$dir"; then
    log "could not download $archive and checksums.txt of release $tag of $repo"
    return 1
  fi
  want="$(awk -v f="$archive" '$2 == f || $2 == "*" f {print $1}' "$dir/checksums.txt")"
  [ -n "$want" ] || die "release $tag: checksums.txt lists no $archive"
  got="$(sha256 "$dir/$archive")"
  [ "$got" = "$want" ] || die "release $tag: $archive has sha256 $got, checksums.txt says $want: not using it"
  log "release $tag: $archive matches checksums.txt (sha256 $got)"
  # (called as an if condition, where set -e does not act: each step says
  # when it fails)
  if [ "$os" = windows ]; then
    if command -v unzip >/dev/null; then
      unzip -q -o "$dir/$archive" "kpack-lint.exe" -d "$dir/x" || die "release $tag: cannot unpack kpack-lint.exe from $archive"
    else
      powershell -NoProfile -Command "Expand-Archive -LiteralPath '$dir/$archive' -DestinationPath '$dir/x' -Force" ||
        die "release $tag: cannot unpack $archive"
    fi
  else
    mkdir -p "$dir/x"
    tar -xzf "$dir/$archive" -C "$dir/x" kpack-lint || die "release $tag: cannot unpack kpack-lint from $archive"
  fi
  mv -f "$dir/x/kpack-lint$exe" "$bin" || die "release $tag: cannot install $bin"
  chmod +x "$bin" || die "release $tag: cannot install $bin"
  rm -rf "$dir"
}

# go_at_least HAVE NEED: whether Go version HAVE (go1.24.3) >= NEED (1.25.0).
go_at_least() {
  local have="${1#go}"
  have="${have%%[!0-9.]*}"
  [ "$(printf '%s\n%s\n' "$2" "$have" | sort -V | head -1)" = "$2" ]
}

# build GO [VAR=VALUE...]: builds kpack-lint from $src with the go command
# GO and the environment changes given, for this command only. GOFLAGS and
# GOWORK of the job do not apply; a commit SHA ref is stamped as the
# commit, a release tag (v1.2.3) as the version.
build() {
  local gocmd="$1" ldflags="" errs="$temp/kpack-lint-build.err"
  shift
  [[ "$ref" =~ ^[0-9a-f]{40}$ ]] && ldflags="-X github.com/rocm-tools/kpack-lint/internal/version.commit=$ref"
  [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] && ldflags="-X github.com/rocm-tools/kpack-lint/internal/version.version=${ref#v}"
  if (cd "$src" && env "$@" GOFLAGS= GOWORK=off "$gocmd" build -trimpath -ldflags "$ldflags" -o "$bin" ./cmd/kpack-lint) 2> "$errs"; then
    cat "$errs" >&2
    return 0
  fi
  cat "$errs" >&2
  grep -q 'error obtaining VCS status' "$errs" || die "the build of kpack-lint from $src failed (see above)"
  log "trying again without VCS stamping (-buildvcs=false)"
  (cd "$src" && env "$@" GOFLAGS=-buildvcs=false GOWORK=off "$gocmd" build -trimpath -ldflags "$ldflags" -o "$bin" ./cmd/kpack-lint) ||
    die "the build of kpack-lint from $src failed (see above)"
}

# private_go: downloads $toolchain into $temp/kpack-lint-go and sets
# gocmd to the path of its go command.
private_go() {
  local file="$toolchain.$os-$arch.tar.gz" dir="$temp/kpack-lint-go" want got
  [ "$os" = windows ] && file="$toolchain.$os-$arch.zip"
  if [ -z "$os" ] || [ -z "$arch" ]; then
    die "no Go toolchain for runner ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}: install Go ${need} or newer before this step"
  fi
  mkdir -p "$dir"
  curl -fsSL -o "$dir/$file" "$dl/$file" || die "could not download $dl/$file"
  want="$(curl -fsSL "$dl/$file.sha256" | awk '{print $1}')" || die "could not download $dl/$file.sha256"
  got="$(sha256 "$dir/$file")"
  if [ -z "$want" ] || [ "$got" != "$want" ]; then
    die "$file has sha256 $got, $dl/$file.sha256 says ${want:-nothing}"
  fi
  if [ "$os" = windows ]; then
    unzip -q -o "$dir/$file" -d "$dir"
  else
    tar -xzf "$dir/$file" -C "$dir"
  fi
  rm -f "$dir/$file"
  gocmd="$dir/go/bin/go$exe"
}

install_source() {
  need="$(awk '$1 == "go" {print $2; exit}' "$src/go.mod")"
  local have=""
  # asked from an empty folder, so no go.mod there makes go switch toolchains
  if command -v go >/dev/null; then
    have="$(cd "$temp" && GOTOOLCHAIN=local GOWORK=off go version 2>/dev/null | awk '{print $3}')" || have=""
  fi
  if [ -n "$have" ] && go_at_least "$have" "$need"; then
    log "building from source at ${ref:-the local checkout} with the runner's go ($have, at least go.mod's $need)"
    build go GOTOOLCHAIN=local
  elif [ -n "$have" ] && go_at_least "$have" 1.21; then
    log "building from source at ${ref:-the local checkout} with GOTOOLCHAIN=$toolchain through the runner's go ($have is older than go.mod's $need; the job's go is not changed)"
    build go GOTOOLCHAIN="$toolchain"
  else
    log "building from source at ${ref:-the local checkout} with a private $toolchain in $temp/kpack-lint-go (the runner has ${have:-no go}; the job's PATH is not changed)"
    private_go
    build "$gocmd" GOTOOLCHAIN=local GOROOT=
  fi
}

tag="$(release_tag)"
how=source
if [ -n "$tag" ]; then
  if install_release "$tag"; then
    how=release
    log "using the release binary of $repo $tag"
  else
    log "building from source instead"
  fi
fi
[ "$how" = release ] || install_source
version_line="$("$bin" --version)" || die "$bin --version failed"
if [ "$how" = release ] && [[ "$version_line" != "kpack-lint version ${tag#v}"* ]]; then
  die "release $tag: the binary says \"$version_line\", want version ${tag#v}"
fi
log "$version_line"
{
  echo "bin=$bin"
  echo "install=$how"
} >> "$GITHUB_OUTPUT"
