"""What a Dask task costs a sweep: the same runs on a 2-worker LocalCluster and
locally, for runs too short to matter (the overhead alone) and for a typical run
(the default scenario's 2,000 boids for 1,500 steps).

    python examples/python/dask_overhead.py
"""

from __future__ import annotations

import statistics
import time

from distributed import Client, LocalCluster

import murmuration as mm


def timed(f, repeat=3):
    t = []
    for _ in range(repeat):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return statistics.median(t)


def main() -> None:
    tiny = dict(grid={"species.boids.count": [50], "species.boids.jitter": [i / 1000 for i in range(40)]},
                steps=2, skip=1)
    typical = dict(grid={"species.boids.jitter": [0.0, 0.05, 0.1, 0.15]}, seeds=2, steps=1500, skip=1000, every=10)
    # One rayon thread per worker process: two workers on two cores.
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      env={"RAYON_NUM_THREADS": "1"}) as cluster, Client(cluster) as client:
        mm.sweep("default", client=client, **tiny)  # warm the workers (import, first task)
        n = 40
        local = timed(lambda: mm.sweep("default", **tiny))
        remote = timed(lambda: mm.sweep("default", client=client, **tiny))
        print(f"{n} tiny runs: local {local * 1e3:.1f} ms, LocalCluster {remote * 1e3:.1f} ms "
              f"-> {(remote - local) / n * 2 * 1e3:.2f} ms per task per worker (2 workers)")
        local = timed(lambda: mm.sweep("default", **typical), 1)
        remote = timed(lambda: mm.sweep("default", client=client, **typical), 1)
        print(f"8 runs of 2,000 boids x 1,500 steps: local {local:.2f} s, LocalCluster {remote:.2f} s "
              f"({(remote / local - 1) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
