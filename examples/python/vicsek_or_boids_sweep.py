"""Order against noise: boids' polarization as the velocity noise (`jitter`)
rises, swept on a Dask LocalCluster and plotted with error bars.

The Vicsek experiment, run with Reynolds boids: each point is the mean over
seeds of a run's polarization after its transient; the bars are the standard
deviation across seeds. Runs headless (matplotlib's Agg backend) and saves a
PNG.

    python examples/python/vicsek_or_boids_sweep.py --out order.png

On a real cluster, pass its scheduler's address: --scheduler tcp://host:8786
(docs/PYTHON.md).
"""

from __future__ import annotations

import argparse
import os
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import murmuration as mm  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="default", help="file or preset (2,000 boids, 60 x 60 periodic box)")
    ap.add_argument("--count", type=int, default=None, help="boids (default: the scenario's)")
    ap.add_argument("--points", type=int, default=9, help="noise values from 0 to --max-noise")
    ap.add_argument("--max-noise", type=float, default=0.4, help="largest jitter (fraction of max_speed per step)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--skip", type=int, default=1000, help="transient steps left out")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler", default=None, help="an existing cluster's address instead of a LocalCluster")
    ap.add_argument("--out", default="order_vs_noise.png")
    a = ap.parse_args()

    noise = np.round(np.linspace(0.0, a.max_noise, a.points), 6).tolist()
    grid = {"species.boids.jitter": noise}
    scenario = a.scenario
    if a.count is not None:
        # A grid axis with one value is an override every run shares.
        grid = {"species.boids.count": [a.count], **grid}

    if a.scheduler:
        client = Client(a.scheduler)
        cluster = None
    else:
        # One task at a time per worker, and one rayon thread per task unless the
        # workers have cores to spare: the cores are shared, not oversubscribed.
        threads = max(1, (os.cpu_count() or 1) // a.workers)
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, dashboard_address=None,
                               env={"RAYON_NUM_THREADS": str(threads)})
        client = Client(cluster)
    try:
        t0 = time.perf_counter()
        table = mm.sweep(scenario, grid, seeds=a.seeds, steps=a.steps, skip=a.skip, every=10, client=client)
        wall = time.perf_counter() - t0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    by = table.groupby("species.boids.jitter")["polarization_mean"]
    mean, std = by.mean(), by.std(ddof=0)
    print(table[["species.boids.jitter", "seed", "polarization_mean", "polarization_std"]].to_string(index=False))
    print(f"{len(table)} runs in {wall:.1f} s")

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    ax.errorbar(mean.index, mean.values, yerr=std.values, marker="o", capsize=3, color="#1f5f8b")
    ax.set_xlabel("velocity noise, jitter (fraction of max speed per step)")
    ax.set_ylabel("polarization $|\\langle \\hat v \\rangle|$ after the transient")
    n = int(table["samples"].iloc[0])
    ax.set_title(f"Boids: order against noise ({scenario}, {a.seeds} seeds, {n} samples each)", fontsize=10)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
