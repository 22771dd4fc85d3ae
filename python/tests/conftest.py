"""Shared helpers: the command line built by `cargo test` (MURMURATION_BIN, set by
`cargo xtask test`), run to compare the package with it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _binary() -> Path:
    b = os.environ.get("MURMURATION_BIN")
    path = Path(b) if b else ROOT / "target" / "debug" / "murmuration"
    if not path.exists():
        raise RuntimeError(
            f"the murmuration binary is not at {path}: run the tests with `cargo xtask test`"
        )
    return path


@pytest.fixture(scope="session")
def cli():
    """Runs `murmuration ARGS...` and returns its standard output (fails on a
    non-zero exit)."""
    binary = _binary()

    def run(*args: str) -> str:
        p = subprocess.run(
            [str(binary), *args], capture_output=True, text=True, timeout=300
        )
        assert p.returncode == 0, f"murmuration {' '.join(args)} failed:\n{p.stderr}"
        return p.stdout

    return run


def digest_of(output: str) -> str:
    """The `digest: ...` line of `murmuration run`'s summary."""
    for line in output.splitlines():
        if line.startswith("digest: "):
            return line.split()[1]
    raise AssertionError(f"no digest in:\n{output}")
