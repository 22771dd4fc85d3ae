"""Couzin et al. 2002, Fig. 4: polarization p and angular momentum m as the zone
of orientation widens and narrows again with the group carried over.

    python examples/research/couzin_hysteresis.py [OUT.png]

Runs `murmuration run examples/research/couzin-hysteresis.toml` for four seeds
(MURMURATION_BIN names the binary; default target/release/murmuration), reads
their metrics tables and draws p and m against delta_r_o, up and down.
"""

import csv
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "couzin-hysteresis.toml")
BIN = os.environ.get("MURMURATION_BIN", "target/release/murmuration")
# The schedule of the scenario: up over [2000, 32000], down over [32000, 62000].
UP, TOP, DOWN, HIGH = 2000, 32000, 62000, 15.0
SEEDS = [1, 2, 3, 4]
EVERY = 200


def delta_r_o(step):
    if step <= UP:
        return 0.0
    if step <= TOP:
        return HIGH * (step - UP) / (TOP - UP)
    return HIGH * (DOWN - step) / (DOWN - TOP)


def run(seed, folder):
    out = os.path.join(folder, f"seed{seed}.csv")
    subprocess.run(
        [BIN, "run", SCENARIO, "--set", f"world.seed={seed}", "--metrics", out,
         "--metrics-every", str(EVERY), "-q"],
        check=True, stdout=subprocess.DEVNULL,
    )
    with open(out) as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "docs/couzin-hysteresis.png"
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(2) as pool:
        tables = list(pool.map(lambda s: run(s, folder), SEEDS))
    rows = len(tables[0])
    mean = {k: [sum(t[i][k] for t in tables) / len(tables) for i in range(rows)]
            for k in ("step", "polarization", "milling")}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, key, name in zip(axes, ("polarization", "milling"),
                             ("polarization p", "angular momentum m")):
        for part, style, label in (("up", "-", "Δr_o increasing"),
                                   ("down", "--", "Δr_o decreasing")):
            pts = [(delta_r_o(s), v) for s, v in zip(mean["step"], mean[key])
                   if (UP < s <= TOP if part == "up" else s > TOP)]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        ax.set_xlabel("Δr_o (units)")
        ax.set_title(name)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean over {len(SEEDS)} seeds")
    axes[0].legend()
    fig.suptitle("Couzin 2002 model, N = 100, Δr_a = 14: hysteresis (collective memory)")
    fig.tight_layout()
    fig.savefig(target, dpi=100)
    print(f"drew {target}")


if __name__ == "__main__":
    main()
