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
# Usage: scripts/aarch64-bench.sh [tools|build|bench]   (no argument: all three in turn)
#   tools   installs what is missing (above); `build` and `bench` install nothing
#   build   cross-builds the aarch64 binary (CI runs it in the background, at a lower priority,
#           beside the tests and the Slurm run, which wait more than they compute)
#   bench   builds the host binary (cargo skips an up-to-date one) and compares the benches
#   DEPTH=10              the bench depth of both builds
#   AARCH64_TARGET_DIR    where the aarch64 build goes (default target/); another directory
#                         lets it run beside other cargo commands without waiting on their lock
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
DEPTH=${DEPTH:-10}
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu
stage=${1:-all}
target_dir=${AARCH64_TARGET_DIR:-target}
case "$stage" in
tools | build | bench | all) ;;
*)
    echo "usage: $0 [tools|build|bench]" >&2
    exit 2
    ;;
esac

have_tools() { command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; }

install_tools() {
    if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
        else
            return 0 # said below
        fi
    fi
    if ! rustup target list --installed | grep -qx "$target"; then
        rustup target add "$target"
    fi
}

if [ "$stage" = tools ] || [ "$stage" = all ]; then
    install_tools
fi
if ! have_tools; then
    echo "aarch64 check skipped: needs aarch64-linux-gnu-gcc and qemu-aarch64 (or root to install them)"
    exit 0
fi

if [ "$stage" = build ] || [ "$stage" = all ]; then
    CARGO_TARGET_DIR=$target_dir CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
        cargo build --release --locked --quiet --target "$target" -p ferz
fi
[ "$stage" = bench ] || [ "$stage" = all ] || exit 0

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
    arm=$(bench_nodes "$use_nnue" qemu-aarch64 -L "$sysroot" "$target_dir/$target/release/ferz")
    echo "bench $DEPTH, UseNNUE=$use_nnue: x86-64 $host nodes, aarch64 (qemu) $arm nodes"
    if [ -z "$host" ] || [ "$host" != "$arm" ]; then
        echo "aarch64 and x86-64 searched different trees (UseNNUE=$use_nnue)" >&2
        failed=1
    fi
done
exit "$failed"
