"""What Python costs over the Rust step: `world.step()` called from a Python loop
against the same steps looped inside Rust (`world.step(n)`), on the standard
benchmark world (`bench-2d`: 100,000 boids, uniform phase), alternated in one
sitting; and the cost of reading positions (one copy into a new numpy array).

    pip install ./python && python examples/python/bench_step.py

Build the package in release mode (pip does); a `maturin develop` build is the
dev profile and is not a measurement.
"""

from __future__ import annotations

import argparse
import statistics
import time

import murmuration as mm


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="bench-2d")
    ap.add_argument("--steps", type=int, default=50, help="steps per sample")
    ap.add_argument("--rounds", type=int, default=7, help="alternated samples of each")
    a = ap.parse_args()

    w = mm.World.from_scenario(a.scenario)
    w.step(20)  # warm up: caches, the thread pool, the grid's buffers
    inside, outside, reads, settled, copies = [], [], [], [], []
    for _ in range(a.rounds):
        t = time.perf_counter()
        w.step(a.steps)
        inside.append((time.perf_counter() - t) / a.steps)
        per = []
        for _ in range(a.steps):
            t = time.perf_counter()
            w.step()
            per.append(time.perf_counter() - t)
        outside.append(statistics.median(per))
        t = time.perf_counter()
        p = w.positions
        reads.append(time.perf_counter() - t)
        time.sleep(0.05)  # rayon's workers stop spinning after a step
        t = time.perf_counter()
        p = w.positions
        settled.append(time.perf_counter() - t)
        t = time.perf_counter()
        p.copy()
        copies.append(time.perf_counter() - t)
    r, py, rd, st, cp = (statistics.median(x) * 1e3 for x in (inside, outside, reads, settled, copies))
    print(f"{a.scenario}: {len(w)} boids, {w.dim}D; medians of {a.rounds} alternated rounds of {a.steps} steps")
    print(f"  step looped in Rust (world.step({a.steps}) / {a.steps}): {r:.3f} ms")
    print(f"  world.step() from a Python loop:                {py:.3f} ms  ({(py / r - 1) * 100:+.1f} %)")
    print(f"  world.positions ({p.nbytes / 1e6:.1f} MB, id order), right after a step: {rd:.3f} ms")
    print(f"  world.positions, 50 ms later:                   {st:.3f} ms")
    print(f"  numpy's own copy of that array (a memcpy):      {cp:.3f} ms")


if __name__ == "__main__":
    main()
