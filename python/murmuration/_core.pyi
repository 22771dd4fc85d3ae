"""Type stubs of the compiled module `murmuration._core` (Rust, PyO3)."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "__version__",
    "SCALAR_METRICS",
    "World",
    "presets",
    "scenario_source",
    "plan_runs",
    "run_point",
    "run_points",
    "stat_columns",
    "run_ladders",
    "run_metrics",
]
__version__: str
#: Names of the scalar metrics, in the metrics table's order.
SCALAR_METRICS: List[str]

_Scenario = Union[str, os.PathLike[str]]

@final
class World:
    """A flock: boids, their species' parameters and the world's settings.

    Arrays read from it are copies in ascending boid-id order, taken under the
    world's lock in one pass, so one thread may step while another reads.
    """

    @staticmethod
    def from_scenario(
        scenario: Optional[_Scenario] = None,
        seed: Optional[int] = None,
        overrides: Optional[Mapping[str, Any]] = None,
    ) -> World:
        """Builds the world a scenario file or preset describes (the default
        scenario when None). `seed` sets world.seed; `overrides` maps `--set`
        paths to values (bool, number, str, or list). Errors: ValueError naming
        file:line:column or the setting and value; OSError for unreadable files."""
    @staticmethod
    def from_toml(
        text: str,
        seed: Optional[int] = None,
        overrides: Optional[Mapping[str, Any]] = None,
        origin: str = "<toml>",
    ) -> World:
        """Builds the world scenario text describes; `origin` names it in errors."""
    @staticmethod
    def restore(data: bytes) -> World:
        """A world from snapshot bytes (`snapshot()` or a `--snapshot` file).
        ValueError when the bytes are not a whole, valid snapshot."""
    def step(self, n: int = 1) -> None:
        """Advances n steps without holding the GIL; Ctrl-C stops between steps."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """`[N, dim]` positions, units (a copy)."""
    @property
    def velocities(self) -> npt.NDArray[np.float32]:
        """`[N, dim]` velocities, units/s (a copy)."""
    @property
    def steering(self) -> npt.NDArray[np.float32]:
        """`[N, dim]` steering acceleration of the last step, units/s² (a copy)."""
    @property
    def species(self) -> npt.NDArray[np.uint16]:
        """`[N]` species index of each boid (names in `species_names`)."""
    @property
    def ids(self) -> npt.NDArray[np.uint32]:
        """`[N]` boid ids, ascending; eaten boids' ids are absent."""
    @property
    def species_names(self) -> List[str]:
        """Species names in index order ("0", "1", ... for a restored snapshot)."""
    @property
    def dim(self) -> int:
        """2 or 3."""
    @property
    def step_index(self) -> int:
        """Steps taken since the world was built."""
    @property
    def time(self) -> float:
        """Simulated time, seconds."""
    def __len__(self) -> int: ...
    def metrics(self) -> Dict[str, float]:
        """Every scalar metric by name, then zone_0, ... (zone counts)."""
    def field_analysis(self, bins: int = 40, ranks: int = 20, shells: int = 5) -> Dict[str, Any]:
        """The field-study analyses of the flock now (`murmuration analyse`):
        size, correlation (r, c, pairs), correlation_length, anisotropy,
        forward_fraction, isotropic_anisotropy, interaction_neighbours, shape,
        density_profile (depth, nn_distance, density)."""
    def set(self, path: str, value: Any) -> None:
        """Changes a parameter by its `--set` path, keeping the boids. ValueError
        for a bad path or value, or a setting only a new world can take
        (counts, spawn regions, obstacles, ...); the world is then unchanged."""
    def snapshot(self) -> bytes:
        """The whole world in the `--snapshot` file format."""
    def digest(self) -> str:
        """16 hex digits: the digest `murmuration run` prints."""
    def record(self, steps: int, every: int = 1) -> Tuple[List[str], npt.NDArray[np.float64]]:
        """Steps `steps` times; returns the metrics table's column names and its
        rows `[rows, columns]`: step 0, then every `every` steps."""

def presets() -> List[str]:
    """The shipped presets' names, default first."""

def run_metrics(
    scenario: _Scenario,
    steps: int,
    every: int = 1,
    seed: Optional[int] = None,
    overrides: Optional[Mapping[str, Any]] = None,
) -> Tuple[List[str], npt.NDArray[np.float64]]:
    """A fresh world's metrics table (see World.record)."""

def scenario_source(scenario: _Scenario) -> Tuple[str, str, Optional[int]]:
    """(text, origin, steps) of a scenario file or preset."""

def plan_runs(
    text: str, origin: str, grid: Sequence[Tuple[str, Sequence[Any]]], seeds: int
) -> List[Tuple[int, List[str], int, List[Tuple[str, str]], List[int]]]:
    """Every sweep run in table order: (index, values as text, seed, overrides,
    index of each axis's value);
    every run's scenario validated first."""

def run_point(
    text: str,
    origin: str,
    overrides: Sequence[Tuple[str, str]],
    steps: int,
    skip: int,
    every: int,
) -> List[float]:
    """One sweep run: [samples, <metric>_mean, <metric>_std, ...]."""

def run_points(
    text: str,
    origin: str,
    runs: Sequence[Sequence[Tuple[str, str]]],
    steps: int,
    skip: int,
    every: int,
) -> List[List[float]]:
    """Many sweep runs in parallel on this machine's cores, in order."""

def stat_columns() -> List[str]:
    """seed, steps, skip, samples, <metric>_mean, <metric>_std, ..."""

def run_ladders(
    text: str,
    origin: str,
    path: str,
    values: Sequence[Any],
    both_ways: bool,
    rung_steps: int,
    skip: int,
    every: int,
    seeds: int,
) -> Tuple[List[Tuple[int, str, str]], List[int], List[List[List[float]]]]:
    """A ladder's rungs (index, value, "up"|"down"), its seeds, and per seed one row per rung:
    [samples, <metric>_mean, <metric>_std, ...]."""
