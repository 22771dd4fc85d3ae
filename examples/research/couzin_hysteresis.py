"""Couzin et al. 2002, Fig. 4: polarization p and angular momentum m as the zone
of orientation widens and narrows again with the group carried over, in one
call of the Python package (`murmuration.ladder`).

    python examples/research/couzin_hysteresis.py [OUT.png] [--seeds K] [--rung-steps N]

The same ladder on the command line:
`murmuration ladder examples/research/couzin-ladder.toml --set ... --plot OUT.png`.
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import murmuration as mm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "couzin-ladder.toml")
VALUES = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 8, 10, 12, 15]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="docs/couzin-hysteresis-python.png")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--rung-steps", type=int, default=2000)
    a = ap.parse_args()
    rows = mm.ladder(SCENARIO, "species.fish.delta_r_o", VALUES,
                     rung_steps=a.rung_steps, skip=a.rung_steps // 2, every=20,
                     seeds=a.seeds, as_frame=True)
    # Mean and spread over seeds of each rung.
    per_rung = rows.groupby(["rung", "direction", "species.fish.delta_r_o"], as_index=False)
    table = per_rung.agg(p=("polarization_mean", "mean"), p_sd=("polarization_mean", "std"),
                         m=("milling_mean", "mean"), m_sd=("milling_mean", "std"))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, key, name in zip(axes, ("p", "m"), ("polarization p", "angular momentum m")):
        for part, style, label in (("up", "-o", "Δr_o increasing"),
                                   ("down", "--o", "Δr_o decreasing")):
            t = table[table["direction"] == part]
            ax.errorbar(t["species.fish.delta_r_o"], t[key], yerr=t[key + "_sd"].fillna(0),
                        fmt=style, markersize=3, capsize=2, label=label)
        ax.set_xlabel("Δr_o (units)")
        ax.set_title(name)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean over {a.seeds} seeds")
    axes[0].legend()
    fig.suptitle("Couzin 2002 model, N = 100, Δr_a = 14: hysteresis (collective memory)")
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"drew {a.out}")


if __name__ == "__main__":
    main()
