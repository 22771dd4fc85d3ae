#!/usr/bin/env bash
# The GPU check in one command: build, parity tests, per-pass profile, benchmark table.
#
#   scripts/gpu-bench.sh [OUTDIR]        (default: $OUT, else target/gpu-bench)
#
# Where cargo exists the binaries are built into .gpubin/ first. A machine without
# cargo (a lent GPU box) runs the binaries carried in .gpubin/ (git-ignored: name it
# in the device run's carry list): build them with
# `scripts/gpu-bench.sh --build-only` on a machine with the same architecture.
# Writes parity.log, profile.log, bench.jsonl and table.md to OUTDIR and prints the
# table last. GPU numbers count only from a real GPU; on lavapipe the script proves
# correctness, not speed.
# Issue 47's table alone, in about 5 minutes of a lease: scripts/gpu-figures.sh
# (run it first when device time is short).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=.gpubin
if [ "${1:-}" = "--build-only" ] || { command -v cargo >/dev/null && [ -z "${GPU_BENCH_PREBUILT:-}" ]; }; then
  mkdir -p "$bin"
  cargo build --release -p murmuration-app -p murmuration-gpu --example gpu_phases || exit 1
  cp target/release/murmuration target/release/examples/gpu_phases "$bin/" || exit 1
  exe=$(cargo test --release -p murmuration-gpu --test integration --no-run --message-format=json 2>/dev/null \
        | python3 -c 'import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="integration": print(m["executable"])' | tail -1)
  [ -n "$exe" ] && cp "$exe" "$bin/gpu-tests" || { echo "could not build the GPU tests"; exit 1; }
  [ "${1:-}" = "--build-only" ] && { ls -la "$bin"; exit 0; }
fi
out=${1:-${OUT:-target/gpu-bench}}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
# NVIDIA containers keep the Vulkan ICD outside the loader's default search path.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES=$icd
{ command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } | tee "$out/gpu.txt"

table() { # bench.jsonl -> markdown table
python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
dev = rows[0].get("device", "?") if rows else "?"
print(f"GPU: {dev}\n")
print("| dim | n | phase | median ms | min ms | ns/boid-step | neighbours | candidates | GPU B/boid |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['dim']} | {r['n']:,} | {r['phase']} | {r['median_ms']:.4f} | {r['min_ms']:.4f} | {r['ns_per_boid_step']:.3f} | {r['neighbours']:.1f} | {r['candidates']:.1f} | {r['bytes_per_boid']:.0f} |")
PY
}
bench() { # OUTFILE [extra env]: the whole GPU table, 2D and 3D
  local f=$1; shift
  : > "$f"
  for dim in 2 3; do
    env "$@" timeout 300 "$bin/murmuration" bench --backend gpu --dim $dim --json >> "$f" || echo "bench dim $dim failed"
  done
}

echo "== parity (GPU against CPU) =="
"$bin/gpu-tests" parity:: --nocapture --test-threads 1 2>&1 | tee "$out/parity.log" | grep -E "adapter|boids|seed|test result|panicked|SKIPPED"
echo "-- parity with the half-width cell variant (SPAN=2) and no read-ahead (UNROLL=0):"
MURMURATION_GPU_SPAN=2 MURMURATION_GPU_UNROLL=0 "$bin/gpu-tests" --test-threads 1 2>&1 | tee "$out/parity-variants.log" | grep -E "test result|panicked"

echo "== behaviours (GPU against CPU: obstacles, entities, predators, zones) =="
"$bin/gpu-tests" behaviours:: presets:: --nocapture --test-threads 1 2>&1 | tee "$out/behaviours.log" | grep -E "boids,|eaten|test result|panicked"

echo "== behaviours workload (oap: 10 obstacles, 3 attractors, 100 predators) against the plain step =="
: > "$out/oap.jsonl"
for w in standard oap standard oap; do
  timeout 300 "$bin/murmuration" bench --backend gpu --dim 2 --n 100000,1000000 --phase uniform --workload $w --json >> "$out/oap.jsonl" || echo "oap bench $w failed"
done
python3 - "$out/oap.jsonl" <<'PY' | tee "$out/oap.md"
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for n in sorted({r["n"] for r in rows}):
    p = statistics.median(r["median_ms"] for r in rows if r["n"] == n and "workload" not in r)
    b = statistics.median(r["median_ms"] for r in rows if r["n"] == n and r.get("workload") == "oap")
    print(f"| 2D {n:,} | plain {p:.4f} ms | oap {b:.4f} ms | ratio {b / p:.2f} |")
PY
for parts in oap p o a; do
  timeout 120 "$bin/gpu_phases" 1000000 2 uniform $parts 2>&1 | tee -a "$out/oap-profile.log" | grep -E "whole|steer|pursue|eat"
done

echo "== kernel variants: whole-step median ms =="
for v in "1 1" "1 0" "2 1" "2 0"; do
  set -- $v
  for cfg in "1000000 2 uniform" "1000000 2 flocked" "1000000 3 uniform" "1000000 3 flocked" "10000000 2 uniform"; do
    # shellcheck disable=SC2086
    r=$(MURMURATION_GPU_SPAN=$1 MURMURATION_GPU_UNROLL=$2 timeout 120 "$bin/gpu_phases" $cfg 2>&1 | grep "whole step")
    echo "span=$1 unroll=$2 $cfg: ${r##*whole step median }" | tee -a "$out/variants.log"
  done
done

echo "== per-pass profile (defaults) =="
for cfg in "1000000 2 uniform" "1000000 2 flocked" "1000000 3 uniform" "10000000 2 uniform"; do
  # shellcheck disable=SC2086
  timeout 120 "$bin/gpu_phases" $cfg 2>&1 | tee -a "$out/profile.log"
done

echo "== Lumen Swarm: a game step and a whole frame of level 5 (issue 17: 1 ms, 60 frames/s) =="
"$bin/murmuration" bench --level 5 --json | tee "$out/game-step.jsonl"
for size in 1280x720 1920x1080; do
  timeout 300 "$bin/murmuration" bench --level 5 --render $size --frames 600 --json | tee -a "$out/game-frames.jsonl"
done

echo "== benchmark (shared/BENCHMARK.md, --backend gpu), defaults and SPAN=2 =="
bench "$out/bench.jsonl"
bench "$out/bench-span2.jsonl" MURMURATION_GPU_SPAN=2
table "$out/bench-span2.jsonl" > "$out/table-span2.md"
if [ -n "${GPU_BENCH_CPU:-}" ]; then
  echo "== CPU on this machine ($(nproc) threads) =="
  lscpu | grep -E "Model name|^CPU\(s\)" | tee "$out/cpu.txt"
  "$bin/murmuration" bench --dim 2 --n 100000,1000000 --threads "$(nproc)" | tee "$out/cpu-bench.txt"
  "$bin/murmuration" bench --dim 3 --n 100000 --threads "$(nproc)" | tee -a "$out/cpu-bench.txt"
fi
echo "== frames on the GPU: one step, drawn from the flock's buffers, 1920x1080 read back =="
for cfg in "2 100000" "2 1000000" "3 100000"; do
  set -- $cfg
  if [ "$1" = 2 ]; then preset=bench-2d; else preset=bench-3d; fi
  # The benchmark's density: bench-2d holds 100,000 in 125 x 125, bench-3d in 27.516^3.
  side=$(python3 -c "print(round((125 if $1 == 2 else 27.516) * ($2 / 1e5) ** (1 / $1), 3))")
  box=$([ "$1" = 2 ] && echo "[$side,$side]" || echo "[$side,$side,$side]")
  echo -n "${1}D $2 boids: " | tee -a "$out/frames.log"
  timeout 300 "$bin/murmuration" render "$preset" --backend gpu --stride 1 --frames 300 \
    --size 1920x1080 -q --set "species.boids.count=$2" --set "world.size=$box" \
    --out "$out/frame-${1}d-$2.png" | grep -E "frame_ms|frame parts" | tee -a "$out/frames.log"
done
table "$out/bench.jsonl" > "$out/table.md"
echo "-- SPAN=2:"; cat "$out/table-span2.md"
echo "-- defaults:"; cat "$out/table.md"
