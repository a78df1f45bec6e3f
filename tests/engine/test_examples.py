"""Every example of examples/run_all.py, each checked against NumPy by the example itself;
as a differential test it runs on the NumPy engine and on the native backend (the examples
create their context with ``cl.create_some_context``, which follows ``SGVM_DEVICE``)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
from run_all import EXAMPLES as NAMES  # noqa: E402


@pytest.mark.parametrize("name", NAMES)
def test_example(name: str) -> None:
    results = importlib.import_module(name).main()
    assert results and all(ok for _, ok in results), results
