"""run() and sweep(): the command line's tables, row for row, here and on a
2-worker Dask LocalCluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import murmuration as mm
from conftest import ROOT


def test_run_equals_the_metrics_csv(cli, tmp_path):
    m = tmp_path / "m.csv"
    cli("run", "fish-school", "--seed", "2", "--steps", "30", "--metrics", str(m),
        "--metrics-every", "10", "-q")
    theirs = pd.read_csv(m, float_precision="round_trip")
    ours = mm.run("fish-school", steps=30, every=10, seed=2)
    assert list(ours.columns) == list(theirs.columns)
    assert len(ours) == 4
    for c in theirs.columns:
        assert np.array_equal(ours[c].to_numpy(dtype=float), theirs[c].to_numpy(dtype=float), equal_nan=True), c
    plain = mm.run("fish-school", steps=10, every=10, seed=2, as_frame=False)
    assert isinstance(plain, dict) and plain["step"].tolist() == [0, 10]


GRID = {"species.boids.alignment_weight": [0.5, 1.5], "world.boundary": ["wrap", "reflect"]}


@pytest.fixture(scope="module")
def local():
    return mm.sweep("default", GRID, seeds=2, steps=30, skip=10, every=2)


def test_sweep_equals_the_command_lines_table(cli, tmp_path, local):
    out = tmp_path / "s.csv"
    cli("sweep", "default", "--set", "species.boids.alignment_weight=0.5,1.5",
        "--set", "world.boundary=wrap,reflect", "--seeds", "2", "--steps", "30",
        "--skip", "10", "--every", "2", "--out", str(out), "-q")
    theirs = pd.read_csv(out, float_precision="round_trip")
    assert list(local.columns) == list(theirs.columns)
    assert len(local) == len(theirs) == 8
    assert local["world.boundary"].tolist() == theirs["world.boundary"].tolist()
    for c in theirs.columns:
        if c == "world.boundary":
            continue
        assert np.array_equal(local[c].to_numpy(dtype=float), theirs[c].to_numpy(dtype=float), equal_nan=True), c


def test_sweep_on_a_two_worker_local_cluster_equals_the_local_sweep(local):
    import distributed
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        remote = mm.sweep("default", GRID, seeds=2, steps=30, skip=10, every=2, client=client)
    pd.testing.assert_frame_equal(remote, local, check_exact=True)


def test_sweep_refuses_bad_grids_before_running():
    with pytest.raises(ValueError, match="species.boids.nope"):
        mm.sweep("default", {"species.boids.nope": [1, 2]}, steps=5)
    with pytest.raises(ValueError, match="no values"):
        mm.sweep("default", {"species.boids.max_speed": []}, steps=5)
    with pytest.raises(ValueError, match="skip"):
        mm.sweep("default", {"species.boids.max_speed": [2]}, steps=5, skip=5)
    with pytest.raises(ValueError, match="seeds"):
        mm.sweep("default", {"species.boids.max_speed": [2]}, steps=5, seeds=0)


def test_the_example_sweeps_on_a_local_cluster_and_saves_its_plot(tmp_path):
    png = tmp_path / "curve.png"
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples/python/vicsek_or_boids_sweep.py"),
         "--steps", "40", "--skip", "20", "--seeds", "2", "--points", "3",
         "--count", "300", "--out", str(png)],
        capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    import matplotlib.image as mpimg

    img = mpimg.imread(png)
    assert img.shape[0] > 200 and img.shape[1] > 300
    assert img[..., :3].std() > 0.05, "the plot is blank"


LADDER = ["species.particles.eta", [0.5, 4.0, 6.0]]


def test_ladder_equals_the_command_lines_table(cli, tmp_path):
    out = tmp_path / "l.csv"
    cli("ladder", "vicsek", "--set", "species.particles.eta=0.5,4,6", "--rung-steps", "40",
        "--skip", "20", "--every", "5", "--seeds", "2", "--out", str(out), "-q")
    theirs = pd.read_csv(out, float_precision="round_trip")
    ours = mm.ladder("vicsek", LADDER[0], LADDER[1], rung_steps=40, skip=20, every=5, seeds=2)
    assert list(ours.columns) == list(theirs.columns)
    assert len(ours) == len(theirs) == 2 * 5
    assert ours["direction"].tolist() == theirs["direction"].tolist() == ["up"] * 3 + ["down"] * 2 + ["up"] * 3 + ["down"] * 2
    assert ours[LADDER[0]].tolist() == [0.5, 4.0, 6.0, 4.0, 0.5] * 2
    for c in theirs.columns:
        if c == "direction":
            continue
        assert np.array_equal(ours[c].to_numpy(dtype=float), theirs[c].to_numpy(dtype=float), equal_nan=True), c
    with pytest.raises(ValueError, match="99"):
        mm.ladder("vicsek", LADDER[0], [0.5, 99], rung_steps=10)
    with pytest.raises(ValueError, match="skip"):
        mm.ladder("vicsek", LADDER[0], [0.5], rung_steps=10, skip=10)


def test_the_hysteresis_example_draws_its_figure(tmp_path):
    png = tmp_path / "h.png"
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples/research/couzin_hysteresis.py"), str(png),
         "--seeds", "2", "--rung-steps", "100"],
        capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    import matplotlib.image as mpimg

    img = mpimg.imread(png)
    assert img.shape[0] > 200 and img[..., :3].std() > 0.05, "the plot is blank"
