#!/usr/bin/env bash
# The release binary on aarch64: cross-builds `ferz` for aarch64-unknown-linux-gnu, runs its
# `bench` under qemu-user, and checks that the node counts equal those of the x86-64 build, with
# the nets (the portable accumulator and output code against the AVX2 path chosen at run time
# on x86-64) and with the hand-tuned evaluation. Equal node counts mean every evaluation of the
# bench's searches came out the same on both architectures.
#
# Tools: the Rust target (rustup), a cross C compiler and linker (ring, under rustls, compiles
# C), and qemu-user. When missing and this runs as root on Debian/Ubuntu they are installed
# (packages gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user); otherwise the script says
# what is missing and exits 0 without checking, so a machine without them can still run CI.
#
# Usage: scripts/aarch64-bench.sh   (builds both release binaries; cargo skips an up-to-date one)
#   DEPTH=10   the bench depth of both builds
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
DEPTH=${DEPTH:-10}
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu

if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
    else
        echo "aarch64 check skipped: needs aarch64-linux-gnu-gcc and qemu-aarch64 (or root to install them)"
        exit 0
    fi
fi
if ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
fi

CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    cargo build --release --locked --quiet --target "$target" -p ferz
# Always through cargo: a stale host binary would compare another tree.
cargo build --release --locked --quiet -p ferz

# `bench_nodes USE_NNUE COMMAND...`: the node count of COMMAND's bench, from its last line
# (`<nodes> nodes <nps> nps`).
bench_nodes() {
    local use_nnue=$1
    shift
    "$@" bench "$DEPTH" --use-nnue "$use_nnue" | tail -n 1 | cut -d ' ' -f 1
}

failed=0
for use_nnue in true false; do
    host=$(bench_nodes "$use_nnue" target/release/ferz)
    arm=$(bench_nodes "$use_nnue" qemu-aarch64 -L "$sysroot" "target/$target/release/ferz")
    echo "bench $DEPTH, UseNNUE=$use_nnue: x86-64 $host nodes, aarch64 (qemu) $arm nodes"
    if [ -z "$host" ] || [ "$host" != "$arm" ]; then
        echo "aarch64 and x86-64 searched different trees (UseNNUE=$use_nnue)" >&2
        failed=1
    fi
done
exit "$failed"
