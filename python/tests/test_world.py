"""The World: arrays, digests and trajectories equal to the command line's,
set(), snapshots, errors and threads."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import murmuration as mm
from conftest import digest_of


def test_arrays_have_the_documented_shapes_and_dtypes():
    w = mm.World.from_scenario("default", seed=2)
    n = len(w)
    assert n == 2000 and w.dim == 2
    assert w.positions.shape == (n, 2) and w.positions.dtype == np.float32
    assert w.velocities.shape == (n, 2) and w.velocities.dtype == np.float32
    assert w.steering.shape == (n, 2)
    assert w.ids.dtype == np.uint32 and np.array_equal(w.ids, np.arange(n))
    assert w.species.dtype == np.uint16 and w.species.shape == (n,)
    assert w.species_names == ["boids"]
    w3 = mm.World.from_scenario(
        "starlings-3d", overrides={"species.starlings.count": 500}
    )
    assert w3.dim == 3 and w3.positions.shape == (500, 3)
    # Copies: writing to one does not touch the world.
    p = w.positions
    p[:] = 0
    assert np.any(w.positions != 0)


def test_digest_equals_the_command_lines(cli):
    w = mm.World.from_scenario(
        "default", seed=7, overrides={"species.boids.alignment_weight": 1.5}
    )
    w.step(30)
    out = cli(
        "run", "default", "--seed", "7", "--steps", "30", "-q",
        "--set", "species.boids.alignment_weight=1.5",
    )
    assert w.digest() == digest_of(out)
    assert w.step_index == 30 and math.isclose(w.time, 30 / 60, rel_tol=1e-6)


def test_positions_equal_the_command_lines_trajectory_bit_for_bit(cli, tmp_path):
    t = tmp_path / "t.npy"
    cli("run", "fish-school", "--seed", "4", "--steps", "20", "--every", "10",
        "--trajectory", str(t), "-q")
    frames = np.load(t)
    w = mm.World.from_scenario("fish-school", seed=4)
    ours = [w.positions]
    for _ in range(2):
        w.step(10)
        ours.append(w.positions)
    assert frames.shape == (3, len(w), 2)
    for k in range(3):
        assert np.array_equal(frames[k][w.ids], ours[k]), f"frame {k} differs"


def test_set_before_the_first_step_equals_the_override_from_the_start():
    a = mm.World.from_scenario("default", seed=1)
    a.set("species.boids.cohesion_weight", 2.0)
    a.set("world.boundary", "reflect")
    b = mm.World.from_scenario(
        "default",
        seed=1,
        overrides={"species.boids.cohesion_weight": 2.0, "world.boundary": "reflect"},
    )
    a.step(25)
    b.step(25)
    assert a.digest() == b.digest()
    c = mm.World.from_scenario("default", seed=1)
    c.step(25)
    assert c.digest() != a.digest()


def test_set_keeps_the_boids_and_changes_what_follows():
    a = mm.World.from_scenario("default", seed=1)
    b = mm.World.from_scenario("default", seed=1)
    a.step(10)
    b.step(10)
    before = a.positions
    a.set("species.boids.max_speed", 1.0)
    assert np.array_equal(a.positions, before)
    a.step(30)
    b.step(30)
    assert np.linalg.norm(a.velocities, axis=1).max() <= 1.0 + 1e-5
    assert np.linalg.norm(b.velocities, axis=1).max() > 1.5


@pytest.mark.parametrize(
    "path, value, words",
    [
        ("species.boids.nope", 1.0, ["species.boids.nope"]),
        ("species.fish.alignment_weight", 1.0, ["fish"]),
        ("species.boids.alignment_weight", "abc", ["alignment_weight", "abc"]),
        ("species.boids.max_speed", float("nan"), ["max_speed", "NaN"]),
        ("species.boids.max_speed", -3, ["max_speed", "-3"]),
        ("species.boids.count", 10, ["species.boids", "spawned"]),
        ("species.boids.speed", 1.0, ["species.boids.speed", "spawned"]),
    ],
)
def test_bad_paths_and_values_are_value_errors_naming_them(path, value, words):
    w = mm.World.from_scenario("default")
    w.step(2)
    d = w.digest()
    with pytest.raises(ValueError) as e:
        w.set(path, value)
    for word in words:
        assert word.lower() in str(e.value).lower(), str(e.value)
    # Nothing changed.
    assert w.digest() == d


def test_wrong_types_and_missing_scenarios_are_python_exceptions(tmp_path):
    w = mm.World.from_scenario("default")
    with pytest.raises(TypeError):
        w.set("species.boids.max_speed", object())
    with pytest.raises(TypeError):
        mm.World.from_scenario("default", overrides={1: 2})
    with pytest.raises(OverflowError):
        mm.World.from_scenario("default", seed=-1)
    with pytest.raises(ValueError, match="no such file, and no preset"):
        mm.World.from_scenario(str(tmp_path / "missing.toml"))
    with pytest.raises(ValueError, match="world.nope"):
        mm.World.from_scenario("default", overrides={"world.nope": 1})
    bad = tmp_path / "bad.toml"
    bad.write_text("dimension = 2\n[world]\nsize = [10, 10]\n[species.a]\ncount = -4\n")
    with pytest.raises(ValueError, match=r"bad.toml:\d+:\d+"):
        mm.World.from_scenario(bad)
    with pytest.raises(ValueError):
        mm.World.from_toml("this is = = not toml")
    with pytest.raises(OverflowError):
        w.step(-1)
    with pytest.raises(ValueError, match="snapshot"):
        mm.World.restore(b"not a snapshot")


def test_snapshot_restores_and_continues_exactly_here_and_in_the_cli(cli, tmp_path):
    a = mm.World.from_scenario("sharks-and-schools", seed=3,
                               overrides={"species.school_a.count": 300,
                                          "species.school_b.count": 300})
    a.step(15)
    snap = a.snapshot()
    b = mm.World.restore(snap)
    assert b.step_index == 15 and len(b) == len(a)
    a.step(20)
    b.step(20)
    assert a.digest() == b.digest()
    f = tmp_path / "w.snap"
    f.write_bytes(snap)
    out = cli("run", "--resume", str(f), "--steps", "20", "-q")
    assert digest_of(out) == a.digest()
    with pytest.raises(ValueError, match="no scenario"):
        b.set("world.dt", 0.01)
    with pytest.raises(ValueError):
        mm.World.restore(snap[:-3])


def test_metrics_name_every_scalar():
    m = mm.World.from_scenario("default").metrics()
    assert list(m)[: len(mm.SCALAR_METRICS)] == list(mm.SCALAR_METRICS)
    assert m["count"] == 2000 and 0.0 <= m["polarization"] <= 1.0


def test_stepping_in_one_thread_while_another_reads_is_safe():
    a = mm.World.from_scenario("default", seed=9)
    errors = []

    def stepper():
        try:
            a.step(60)
        except Exception as e:  # pragma: no cover - the assertion reports it
            errors.append(e)

    t = threading.Thread(target=stepper)
    t.start()
    reads = 0
    while t.is_alive():
        p, v = a.positions, a.velocities
        assert p.shape == v.shape == (2000, 2)
        assert np.isfinite(p).all()
        a.metrics()
        reads += 1
    t.join()
    assert not errors and reads > 0
    b = mm.World.from_scenario("default", seed=9)
    b.step(60)
    assert a.digest() == b.digest()


def test_arrays_after_boids_were_eaten_follow_the_trajectory_of_the_cli(cli, tmp_path):
    # A shark in a small sea eats a few fish: ids are no longer 0..N-1, and the
    # arrays come from the world's id-ordered view instead of the direct scatter.
    o = {
        "world.size": [60, 60],
        "species.school_a.count": 300,
        "species.school_b.count": 300,
        "species.shark.eat_radius": 2.0,
        "species.shark.spawn": {"min": [30, 30], "max": [30, 30]},
        "species.target.spawn": {"min": [5, 5], "max": [5, 5]},
    }
    text = {
        "world.size": "[60, 60]",
        "species.school_a.count": "300",
        "species.school_b.count": "300",
        "species.shark.eat_radius": "2.0",
        "species.shark.spawn": '{ "min" = [30, 30], "max" = [30, 30] }',
        "species.target.spawn": '{ "min" = [5, 5], "max" = [5, 5] }',
    }
    t = tmp_path / "t.npy"
    args = ["run", "sharks-and-schools", "--steps", "100", "--every", "100",
            "--trajectory", str(t), "-q"]
    for k, v in text.items():
        args += ["--set", f"{k}={v}"]
    out = cli(*args)
    w = mm.World.from_scenario("sharks-and-schools", overrides=o)
    w.step(100)
    assert len(w) < 602, "nothing was eaten: the test no longer covers sparse ids"
    ids = w.ids
    assert np.all(np.diff(ids.astype(np.int64)) > 0)
    frame = np.load(t)[1]
    assert np.isnan(frame[np.setdiff1d(np.arange(602), ids)]).all()
    assert np.array_equal(frame[ids], w.positions)
    assert w.species.shape == (len(w),)
    assert w.digest() == digest_of(out)


def test_a_world_larger_than_memory_is_a_value_error_not_a_crash():
    # 260 million 3D boids need about 27 GiB: more than these machines have.
    huge = {"species.starlings.count": 260_000_000}
    with pytest.raises(ValueError, match="GiB of memory"):
        mm.World.from_scenario("starlings-3d", overrides=huge)
    with pytest.raises(ValueError, match="GiB of memory"):
        mm.sweep("starlings-3d", {"species.starlings.count": [100, 260_000_000]}, steps=2)


def test_field_analysis_matches_the_command_line(cli, tmp_path):
    import json

    out = tmp_path / "a.json"
    cli("analyse", "fish-school", "--steps", "40", "--out", str(out))
    theirs = json.loads(out.read_text())["frames"][0][1]
    w = mm.World.from_scenario("fish-school")
    w.step(40)
    ours = w.field_analysis()
    assert ours["count"] == theirs["count"]
    for k in ("size", "correlation_length", "interaction_neighbours"):
        a, b = ours[k], theirs[k]
        assert (a != a and b is None) or a == b, k
    assert ours["anisotropy"] == theirs["anisotropy"]
    assert ours["shape"] == theirs["shape"]
    assert len(ours["correlation"]["r"]) == 40
    with pytest.raises(ValueError, match="bins"):
        w.field_analysis(bins=0)
