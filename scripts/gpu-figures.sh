#!/usr/bin/env bash
# Issue 47's figures in one table, sized for a short device lease (about 5
# minutes on an H200): the plain step, the behaviours' price and where it goes,
# the 10M benchmark beside the profiler, frames drawn from the GPU's buffers,
# seed 002 at its full scale, and the hunt test; then issue 48's CPU figures on
# the host's many cores (the 1M step from 1 to 16 threads, k = 7 against the
# metric step).
#
#   scripts/gpu-figures.sh [OUTDIR]     (default: $OUT, else target/gpu-figures)
#
# Uses the binaries in .gpubin/ (built by `scripts/gpu-bench.sh --build-only`
# where cargo exists). GPU_FIGURES_SMALL=1 divides every count by 100: a dry
# run of the script on lavapipe (its figures prove nothing about speed).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=.gpubin
if command -v cargo >/dev/null && [ -z "${GPU_BENCH_PREBUILT:-}" ]; then
  scripts/gpu-bench.sh --build-only >/dev/null || exit 1
fi
out=${1:-${OUT:-target/gpu-figures}}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && export VK_DRIVER_FILES=$icd
{ command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } > "$out/gpu.txt"
div=1
[ -n "${GPU_FIGURES_SMALL:-}" ] && div=100
n() { echo $(($1 / div)); }
m=$(n 1000000)
tm=$(n 10000000)
: > "$out/figures.tsv"
: > "$out/cpu.jsonl"
# figure NAME TARGET VALUE: one row of the table.
figure() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" | tee -a "$out/figures.tsv"; }
median() { # bench --json rows on stdin -> the first row's median_ms
  python3 -c 'import sys,json
rows=[json.loads(l) for l in sys.stdin if l.startswith("{")]
print("%.4f" % rows[0]["median_ms"] if rows else "failed")'
}
bench() { timeout 240 "$bin/murmuration" bench --backend gpu --phase uniform --json "$@" 2>>"$out/errors.log" | tee -a "$out/bench.jsonl" | median; }
phases() { timeout 120 "$bin/gpu_phases" "$@" 2>&1 | tee -a "$out/phases.log"; }
frame() { # frame NAME PRESET COUNT-SETTINGS... -> median frame_ms
  local name=$1 preset=$2; shift 2
  timeout 240 "$bin/murmuration" render "$preset" --backend gpu --stride 1 --frames 120 \
    --size 1920x1080 -q "$@" --out "$out/$name.png" 2>>"$out/errors.log" | tee -a "$out/frames.log" \
    | sed -n 's/.*frame_ms: median \([0-9.]*\).*/\1/p'
}
side2() { python3 -c "print(round(125 * ($1 / 1e5) ** 0.5, 3))"; }

p1=$(bench --dim 2 --n "$m")
figure "plain step, 2D $m" "<= 0.20 ms" "$p1"
figure "plain step, 2D $tm (bench)" "<= 2.0 ms" "$(bench --dim 2 --n "$tm")"
figure "plain step, 2D $tm (gpu_phases whole step)" "bench within 10 %" \
  "$(phases "$tm" 2 uniform | sed -n 's/.*whole step median \([0-9.]*\).*/\1/p')"
figure "plain step, 3D $m" "<= 0.5 ms" "$(bench --dim 3 --n "$m")"
oap=$(bench --dim 2 --n "$m" --workload oap)
figure "behaviours (oap), 2D $m" "<= 1.5x plain" \
  "$oap ($(python3 -c "print('%.1fx of plain' % ($oap / $p1))" 2>/dev/null))"
phases "$m" 2 uniform oap > "$out/oap-passes.log"
for pass in pursue rank_cells steer; do
  figure "  oap pass $pass" "" "$(sed -n "s/^ *$pass  *\([0-9.]*\) ms.*/\1/p" "$out/oap-passes.log")"
done
figure "frame, 2D $m, 1920x1080, glow" "<= 8 ms" \
  "$(frame frame-1m bench-2d --set "species.boids.count=$m" --set "world.size=[$(side2 "$m"),$(side2 "$m")]")"
figure "  where the $m frame went" "" "$(grep 'frame parts' "$out/frames.log" | tail -1 | sed 's/^frame parts (median ms): //')"
figure "frame, 2D $m, no glow" "" \
  "$(frame frame-1m-flat bench-2d --no-bloom --set "species.boids.count=$m" --set "world.size=[$(side2 "$m"),$(side2 "$m")]")"
figure "frame, 2D $tm, 1920x1080, glow" "<= 40 ms" \
  "$(frame frame-10m bench-2d --set "species.boids.count=$tm" --set "world.size=[$(side2 "$tm"),$(side2 "$tm")]")"
fish=$(n 25000)
figure "seed 002, 2 x $fish fish, frame" "<= 8.3 ms (120/s)" \
  "$(frame sharks sharks-and-schools --set "species.school_a.count=$fish" --set "species.school_b.count=$fish")"
hunt=$(timeout 120 "$bin/gpu-tests" hunts_on_the_gpu --nocapture --test-threads 1 2>&1 | tee "$out/hunt.log" | grep -E "test result" | tail -1)
figure "hunts_on_the_gpu_repeat_bit_for_bit" "passes" "${hunt:-no result}"

# Issue 48 on the same lease: the device machine's host has many cores, the
# one place a session may see the CPU step at 1, 2, 4, 8 and 16 threads.
cores=$(nproc)
cpu() { timeout 120 "$bin/murmuration" bench --json "$@" 2>>"$out/errors.log" | tee -a "$out/cpu.jsonl" | median; }
one=""
for t in 1 2 4 8 16 32; do
  [ "$t" -gt "$cores" ] && break
  # This run's row alone: its median and its phases (grid, gather, steer),
  # which show the phase that stops scaling.
  row=$(timeout 120 "$bin/murmuration" bench --json --dim 2 --n "$m" --phase uniform --threads "$t" \
    2>>"$out/errors.log" | tee -a "$out/cpu.jsonl")
  ms=$(printf '%s\n' "$row" | median)
  [ -z "$one" ] && [ "$ms" != failed ] && one=$ms
  split=$(printf '%s\n' "$row" | python3 -c 'import sys,json
rows=[json.loads(l) for l in sys.stdin if l.startswith("{")]
r=rows[0] if rows else {}
keys=("grid_ms","gather_ms","steer_ms")
print("grid %.3f, gather %.3f, steer %.3f" % tuple(r[k] for k in keys) if all(k in r for k in keys) else "no phases")')
  figure "CPU step, 2D $m uniform, $t threads ($cores cores)" ">= 10x at 16" \
    "$ms ($(python3 -c "print('%.2fx' % ($one / $ms))" 2>/dev/null || echo "no speedup"); $split)"
done
topo=$(cpu --scene bench-2d --set species.boids.topological_neighbours=7 --threads "$cores" --steps 30)
metric=$(cpu --scene bench-2d --threads "$cores" --steps 30)
figure "CPU bench-2d, k = 7 against metric, $cores threads" "<= 1.5x" \
  "$topo / $metric ($(python3 -c "print('%.2fx' % ($topo / $metric))" 2>/dev/null))"

{
  echo "GPU: $(tail -n +2 "$out/gpu.txt" | head -1)"
  echo
  echo "| figure | target | measured (ms unless said) |"
  echo "|---|---|---|"
  awk -F'\t' '{printf "| %s | %s | %s |\n", $1, $2, $3}' "$out/figures.tsv"
} > "$out/figures.md"
cat "$out/figures.md"
