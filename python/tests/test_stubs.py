"""The type stubs editors read (`_core.pyi`) match the compiled module: every
function, method, property and argument, checked by mypy's stubtest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_the_stubs_match_the_compiled_module():
    p = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "murmuration._core"],
        capture_output=True, text=True, timeout=300,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert p.returncode == 0, p.stdout + p.stderr
