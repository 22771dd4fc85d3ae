"""What a Dask worker runs: a plain module-level function, so tasks pickle by
reference (the worker imports ``murmuration`` itself)."""

from __future__ import annotations

import hashlib
from typing import List, Sequence, Tuple

from . import _core


def run_point(
    text: str,
    origin: str,
    overrides: Sequence[Tuple[str, str]],
    steps: int,
    skip: int,
    every: int,
) -> List[float]:
    """One sweep run: ``[samples, <metric>_mean, <metric>_std, ...]``."""
    return _core.run_point(text, origin, list(overrides), steps, skip, every)


def token(text: str, overrides: Sequence[Tuple[str, str]]) -> str:
    """A short digest of a run's inputs, for its task key."""
    h = hashlib.blake2b(text.encode(), digest_size=8)
    for p, v in overrides:
        h.update(f"\0{p}={v}".encode())
    return h.hexdigest()
