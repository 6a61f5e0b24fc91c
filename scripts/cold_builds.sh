#!/usr/bin/env bash
# Cold-build times behind the README's "How long the first build takes": a fresh clone of this
# repository and two one-line programs (polyclob, and the official Rust SDK for comparison),
# each built from scratch into its own empty target directory, one at a time. Sources are
# fetched first, so the figures are compile time, not download time. Run on a quiet machine:
#   scripts/cold_builds.sh [OUT_DIR]        (default: a new temporary directory)
# BASELINE=<commit> adds, first, the demo's cold build at that commit (same run, same machine),
# e.g. the commit before the workspace split, whose 187 s issue 33 set the 70% target against.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
log="$out/results.txt"
git clone -q "$repo" "$out/clone"
if [ -n "${BASELINE:-}" ]; then
  git clone -q "$repo" "$out/baseline"
  git -C "$out/baseline" checkout -q "$BASELINE"
  (cd "$out/baseline" && cargo fetch -q)
fi

mkdir -p "$out/oneline-polyclob/src" "$out/oneline-sdk/src"
cat > "$out/oneline-polyclob/Cargo.toml" <<TOML
[package]
name = "oneline-polyclob"
version = "0.1.0"
edition = "2024"
[dependencies]
polyclob = { path = "$out/clone" }
[workspace]
TOML
echo 'fn main() { println!("{}", std::any::type_name::<polyclob::ClobClient>()); }' \
  > "$out/oneline-polyclob/src/main.rs"
cat > "$out/oneline-sdk/Cargo.toml" <<'TOML'
[package]
name = "oneline-sdk"
version = "0.1.0"
edition = "2024"
[dependencies]
polymarket_client_sdk_v2 = { version = "=0.9.0", features = ["clob", "ws"] }
[workspace]
TOML
echo 'fn main() { println!("{}", std::any::type_name::<polymarket_client_sdk_v2::clob::Client>()); }' \
  > "$out/oneline-sdk/src/main.rs"

(cd "$out/clone" && cargo fetch -q)
(cd "$out/oneline-polyclob" && cargo fetch -q)
(cd "$out/oneline-sdk" && cargo fetch -q)

measure() { # name dir command...
  local name=$1 dir=$2
  shift 2
  echo "== $name: $* (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$log"
  (cd "$dir" && CARGO_TARGET_DIR="$out/target-$name" /usr/bin/time -f "$name: %e s wall, %U s user, %S s sys" "$@" \
    >"$out/$name.log" 2>&1) || { tail -20 "$out/$name.log"; exit 1; }
  tail -1 "$out/$name.log" | tee -a "$log"
}
if [ -n "${BASELINE:-}" ]; then
  measure "demo-at-$(git -C "$out/baseline" rev-parse --short HEAD)" "$out/baseline" cargo build --release --example demo
fi
measure demo "$out/clone" cargo build --release --example demo
measure oneline-polyclob "$out/oneline-polyclob" cargo build --release
measure oneline-sdk "$out/oneline-sdk" cargo build --release
measure test-no-run "$out/clone" cargo test --workspace --all-features --no-run
echo "results in $log"
