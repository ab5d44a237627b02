"""Shared pytest options.

``python -m pytest --update-goldens`` (or ``ATOUT_UPDATE_GOLDENS=1``) rewrites the golden files under
tests/golden from the current compiler instead of comparing against them; review the diff with
``git diff tests/golden`` before committing it.
"""
from __future__ import annotations

import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/golden/* from the current compiler instead of comparing")


@pytest.fixture
def update_goldens(request) -> bool:
    """True when the run should rewrite golden files (--update-goldens or ATOUT_UPDATE_GOLDENS=1)."""
    return bool(request.config.getoption("--update-goldens") or os.environ.get("ATOUT_UPDATE_GOLDENS") == "1")
