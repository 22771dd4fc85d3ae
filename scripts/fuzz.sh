#!/usr/bin/env bash
# Fuzzes the scenario parser and the snapshot loader (cargo-fuzz, libFuzzer).
#
#   scripts/fuzz.sh [SECONDS]        # each target for SECONDS (default 600)
#
# Needs the nightly toolchain and `cargo install cargo-fuzz`. The seed corpora are
# built from what ships: every preset's scenario file, and a snapshot of every
# preset after a few steps (with its boid count capped), written by the release
# binary. libFuzzer's -timeout turns a slow input (a hang) into a finding, and
# -rss_limit_mb an input that allocates without bound. Findings land in
# fuzz/artifacts/<target>/; the corpora in fuzz/corpus/ (both ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}

cargo build --release --quiet
mkdir -p fuzz/corpus/scenario fuzz/corpus/snapshot
cp scenarios/*.toml fuzz/corpus/scenario/
for p in $(target/release/murmuration presets | awk '{print $1}'); do
    # Snapshots of every preset; the fuzz target reads the first byte as a mode,
    # so each seed is stored once with it (1: recompute the checksum).
    sets=()
    for s in $(target/release/murmuration presets --show "$p" | sed -n 's/^\[species\.\([a-z0-9_-]*\)\].*/\1/p'); do
        sets+=(--set "species.$s.count=200")
    done
    target/release/murmuration run "$p" --steps 5 -q "${sets[@]}" \
        --snapshot "fuzz/corpus/$p.snap" >/dev/null
    { printf '\001'; cat "fuzz/corpus/$p.snap"; } >"fuzz/corpus/snapshot/$p"
    rm "fuzz/corpus/$p.snap"
done

for target in scenario snapshot; do
    echo "== $target: $seconds s"
    cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 2>&1 |
        grep -E '^(stat::|#[0-9]+ *DONE|==|SUMMARY|artifact)' || true
done
