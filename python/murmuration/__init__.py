"""Murmuration: exact, deterministic boids in 2D and 3D, from Rust.

The engine is the same code as the ``murmuration`` command line: the same
scenario files and presets, the same ``--set`` paths and errors, the same
metrics, snapshots and digests, bit for bit.

- :class:`World` -- a running flock: ``step``, numpy arrays of the state,
  ``metrics``, ``set``, ``snapshot`` / ``restore``, ``digest``.
- :func:`run` -- one run's metrics table (the ``--metrics`` CSV's columns).
- :func:`sweep` -- every combination of parameter values times seeds, run here
  in parallel or as tasks on a Dask cluster; the rows of ``murmuration sweep``.
- :func:`ladder` -- one parameter stepped up and back down with the flock
  carried over (hysteresis); the rows of ``murmuration ladder``.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Union
import os

import numpy as np

from . import _core, _tasks
from ._core import World, presets, SCALAR_METRICS

__all__ = ["World", "run", "sweep", "ladder", "presets", "SCALAR_METRICS", "__version__"]
__version__: str = _core.__version__

Scenario = Union[str, "os.PathLike[str]"]


def _table(columns: Sequence[str], data: Dict[str, Any], as_frame: Optional[bool]):
    """A pandas DataFrame when pandas is installed (or asked for), else the dict."""
    if as_frame is False:
        return data
    try:
        import pandas as pd
    except ImportError:
        if as_frame:
            raise
        return data
    return pd.DataFrame({c: data[c] for c in columns})


def run(
    scenario: Optional[Scenario] = None,
    steps: int = 1000,
    every: int = 1,
    seed: Optional[int] = None,
    overrides: Optional[Mapping[str, Any]] = None,
    as_frame: Optional[bool] = None,
):
    """Runs a scenario (a file or a preset's name; the default when ``None``) for
    ``steps`` steps and returns its metrics table: one row at step 0, then one
    every ``every`` steps, with the columns of ``murmuration run --metrics``
    (``step``, ``time``, every scalar metric, ``zone_0``, ...).

    A pandas DataFrame when pandas is installed, else a dict of numpy arrays
    (``as_frame=False`` asks for the dict, ``True`` requires pandas).
    """
    world = World.from_scenario(scenario, seed=seed, overrides=dict(overrides or {}))
    columns, rows = world.record(steps, every)
    data: Dict[str, Any] = {c: rows[:, i] for i, c in enumerate(columns)}
    data["step"] = data["step"].astype(np.int64)
    for c in columns:
        # `outside` stays float: NaN in a world without edges (docs/METRICS.md).
        if c.startswith("zone_") or c in ("count", "groups", "inside_obstacles"):
            data[c] = data[c].astype(np.int64)
    return _table(columns, data, as_frame)


def sweep(
    scenario: Optional[Scenario],
    grid: Mapping[str, Sequence[Any]],
    seeds: int = 1,
    steps: Optional[int] = None,
    skip: int = 0,
    every: int = 1,
    client: Any = None,
    as_frame: Optional[bool] = None,
):
    """Every combination of the ``grid``'s values times ``seeds`` seeds, each run
    for ``steps`` steps (default: the scenario's own, else 1000); returns one row
    per run with the mean and standard deviation of every metric after ``skip``
    steps of transient, sampled every ``every`` steps.

    The rows are those of ``murmuration sweep`` (same order: the first grid key
    slowest, the seed fastest; same numbers, bit for bit). Columns: ``run``, one
    per grid key holding the values as given, ``seed``, ``steps``, ``skip``,
    ``samples``, then ``<metric>_mean`` and ``<metric>_std``.

    With ``client`` (a ``dask.distributed.Client``) each run is one task on its
    cluster: the task receives the scenario's text, its overrides and the
    schedule, and returns the statistics (a few hundred bytes each way).
    Without one, the runs share this machine's cores. The results are
    identical either way and come back in grid order.
    """
    if scenario is None:
        scenario = "default"
    text, origin, own_steps = _core.scenario_source(scenario)
    if steps is None:
        steps = own_steps if own_steps is not None else 1000
    keys = list(grid.keys())
    values = [list(grid[k]) for k in keys]
    runs = _core.plan_runs(text, origin, list(zip(keys, values)), seeds)
    overrides = [r[3] for r in runs]
    if client is None:
        results = _core.run_points(text, origin, overrides, steps, skip, every)
    else:
        futures = client.map(
            _tasks.run_point,
            [text] * len(runs),
            [origin] * len(runs),
            overrides,
            [steps] * len(runs),
            [skip] * len(runs),
            [every] * len(runs),
            key=[f"murmuration-run-{r[0]}-{_tasks.token(text, o)}" for r, o in zip(runs, overrides)],
        )
        results = client.gather(futures)
    stat_columns = _core.stat_columns()
    columns = ["run"] + keys + stat_columns
    data: Dict[str, Any] = {"run": np.array([r[0] for r in runs], dtype=np.int64)}
    # The values as given (the grid's own objects), picked by the core's plan.
    for a, k in enumerate(keys):
        data[k] = [values[a][r[4][a]] for r in runs]
    data["seed"] = np.array([r[2] for r in runs], dtype=np.int64)
    data["steps"] = np.full(len(runs), steps, dtype=np.int64)
    data["skip"] = np.full(len(runs), skip, dtype=np.int64)
    stats = np.array(results, dtype=np.float64).reshape(len(runs), -1)
    data["samples"] = stats[:, 0].astype(np.int64)
    for i, c in enumerate(stat_columns[4:]):
        data[c] = stats[:, 1 + i]
    return _table(columns, data, as_frame)



def ladder(
    scenario: Optional[Scenario],
    path: str,
    values: Sequence[Any],
    rung_steps: int,
    skip: int = 0,
    every: int = 1,
    seeds: int = 1,
    both_ways: bool = True,
    as_frame: Optional[bool] = None,
):
    """Steps ``path`` through ``values`` (then, ``both_ways``, back down without
    repeating the top), holding each for ``rung_steps`` steps with the flock
    carried from rung to rung; one run per seed (the scenario's seed and the
    next ``seeds - 1``), in parallel on this machine's cores.

    Returns one row per seed and rung, the rows of ``murmuration ladder`` (same
    order: seed by seed, rung by rung; same numbers, bit for bit). Columns:
    ``rung``, ``direction`` (``"up"``/``"down"``), ``path`` (the value as
    given), ``seed``, ``rung_steps``, ``skip``, ``samples``, then
    ``<metric>_mean`` and ``<metric>_std`` over the rung's steps after ``skip``,
    sampled every ``every``.
    """
    if scenario is None:
        scenario = "default"
    text, origin, _ = _core.scenario_source(scenario)
    values = list(values)
    rungs, seed_list, per_seed = _core.run_ladders(
        text, origin, path, values, both_ways, rung_steps, skip, every, seeds
    )
    n = len(rungs)
    # The value objects as given: the way up, then back down.
    given = values + (values[-2::-1] if both_ways else [])
    stat_columns = _core.stat_columns()
    columns = ["rung", "direction", path, "seed", "rung_steps", "skip", "samples"] + stat_columns[4:]
    stats = np.array(per_seed, dtype=np.float64).reshape(seeds * n, -1)
    data: Dict[str, Any] = {
        "rung": np.tile(np.array([r[0] for r in rungs], dtype=np.int64), seeds),
        "direction": [r[2] for r in rungs] * seeds,
        path: given[:n] * seeds,
        "seed": np.repeat(np.array(seed_list, dtype=np.int64), n),
        "rung_steps": np.full(seeds * n, rung_steps, dtype=np.int64),
        "skip": np.full(seeds * n, skip, dtype=np.int64),
        "samples": stats[:, 0].astype(np.int64),
    }
    for i, c in enumerate(stat_columns[4:]):
        data[c] = stats[:, 1 + i]
    return _table(columns, data, as_frame)
