#!/usr/bin/env bash
# Installs (once per machine, cached) an ORT C API client binding that the ort_c_api tests
# run on onnx-light's libonnxruntime.so.1 and on the real ORT library the package ships
# (the oracle), and prints its folder. Test-only; nothing here is used by the runtime.
#   scripts/ort_clients.sh node   # npm onnxruntime-node 1.29.0 (+ onnxruntime-common),
#                                 # unpacked without running its install script (which
#                                 # downloads CUDA binaries); its addon asks for API 29
#   scripts/ort_clients.sh java   # Maven com.microsoft.onnxruntime:onnxruntime 1.29.0 (the jar,
#                                 # with its JNI library and a real ORT inside); prints the jar
#   scripts/ort_clients.sh rust   # tests/ort_c_api/rust_client built with the `ort` crate
#                                 # (crates.io, Cargo.lock-pinned; load-dynamic, API 29) into
#                                 # build/rust-client; prints the binary
#   scripts/ort_clients.sh go     # github.com/yalue/onnxruntime_go v1.27.0 from the Go module
#                                 # proxy (checked against go.sum's hash), copied writable:
#                                 # its own `go test` suite and test models (API 24)
# Pinned by version and sha256; the tarballs are kept in $CACHE/npm.
set -euo pipefail
CACHE=${ONNX_LIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-light}
log() { echo "[ort-clients] $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# The npm tarball of package@version, fetched once and checked (prints its path).
npm_tgz() {  # package version sha256
  local tgz="$CACHE/npm/$1-$2.tgz"
  if ! sha_ok "$tgz" "$3"; then
    log "fetching $1@$2 from npm (cached afterwards)"
    mkdir -p "$CACHE/npm"
    rm -f "$tgz"
    (cd "$CACHE/npm" && npm pack --silent "$1@$2" >/dev/null) || die "npm pack $1@$2 failed"
    sha_ok "$tgz" "$3" || die "checksum mismatch for $tgz"
  fi
  echo "$tgz"
}

node_client() {
  local ver=1.29.0 dir="$CACHE/ort-clients/node-1.29.0"
  if [ ! -f "$dir/.done" ]; then
    local node_tgz common_tgz
    node_tgz=$(npm_tgz onnxruntime-node $ver cfdfb45ec4044b1fdca43e5d2e180fb6817e649ff8ad1e0dfc90e18e51b67037)
    common_tgz=$(npm_tgz onnxruntime-common $ver 9b56a571348dc0e980f939b88989864946148d8500cbd0957534975389a1743b)
    rm -rf "$dir"
    mkdir -p "$dir/node_modules/onnxruntime-node" "$dir/node_modules/onnxruntime-common"
    # Only what runs on Linux x64: the JavaScript, and the addon with the ORT beside it.
    tar -xzf "$node_tgz" -C "$dir/node_modules/onnxruntime-node" --strip-components=1 \
      package/package.json package/dist package/bin/napi-v6/linux/x64
    tar -xzf "$common_tgz" -C "$dir/node_modules/onnxruntime-common" --strip-components=1
    touch "$dir/.done"
    log "onnxruntime-node $ver unpacked in $dir"
  fi
  echo "$dir"
}

go_client() {
  local mod=github.com/yalue/onnxruntime_go ver=v1.27.0
  local sum="h1:c1YSgDNtpf0WGtxj3YeRIb8VC5LmM1J+Ve3uHdteC1U="
  local dir="$CACHE/ort-clients/onnxruntime_go-$ver"
  if [ ! -f "$dir/.done" ]; then
    command -v go >/dev/null || die "go is not on PATH (Debian's golang-go, or the machine image's)"
    local modcache="$CACHE/go-mod" info
    log "fetching $mod@$ver from the Go module proxy (cached afterwards)"
    info=$(GOMODCACHE=$modcache GOFLAGS=-modcacherw go mod download -json "$mod@$ver") ||
      die "go mod download $mod@$ver failed"
    echo "$info" | grep -q "\"Sum\": \"$sum\"" || die "checksum mismatch for $mod@$ver"
    local src
    src=$(echo "$info" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    cp -r "$src" "$dir"
    chmod -R u+w "$dir"
    touch "$dir/.done"
    log "$mod $ver copied to $dir"
  fi
  echo "$dir"
}

java_client() {
  local ver=1.29.0 sha=5933bbc0c6c4d89afc04bf7c11011de23a947509c1352e5bf5936e62a84e4d10
  local repo="$CACHE/m2" jar
  jar="$repo/com/microsoft/onnxruntime/onnxruntime/$ver/onnxruntime-$ver.jar"
  if ! sha_ok "$jar" "$sha"; then
    command -v mvn >/dev/null || die "mvn is not on PATH (Debian's maven, or the machine image's)"
    log "fetching com.microsoft.onnxruntime:onnxruntime:$ver from Maven Central (cached afterwards)"
    mvn -q dependency:get "-Dartifact=com.microsoft.onnxruntime:onnxruntime:$ver" \
      "-Dmaven.repo.local=$repo" >&2 || die "mvn dependency:get failed"
    sha_ok "$jar" "$sha" || die "checksum mismatch for $jar"
  fi
  echo "$jar"
}

rust_client() {
  command -v cargo >/dev/null || die "cargo is not on PATH (Debian's cargo, or the machine image's)"
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  # In the checkout's build folder: a target folder shared by two checkouts once took the
  # other's binary as up to date (the crates themselves stay cached in ~/.cargo).
  local target="${ONNX_LIGHT_BUILD_DIR:-$root/build}/rust-client"
  CARGO_TARGET_DIR=$target cargo build -q --locked \
    --manifest-path "$root/tests/ort_c_api/rust_client/Cargo.toml" >&2 ||
    die "building tests/ort_c_api/rust_client failed"
  echo "$target/debug/ort_rust_client"
}

case "${1:-}" in
  node) node_client ;;
  go) go_client ;;
  java) java_client ;;
  rust) rust_client ;;
  *) die "usage: scripts/ort_clients.sh node|go|java|rust" ;;
esac
