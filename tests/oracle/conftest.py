"""tests/oracle: the kernel tests of tests/engine and tests/subgroups, each launch run on
sgvm (the tests' own assertions) and again on the oracle, compared by dual.py.

Skipped where the oracle (``pip install 'sgvm[oracle]'``) is not installed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import harness
from sgvm.oracle.setup import OracleSetupError, vendor_folder
from subgroups import helpers

from .dual import TALLY, compare_launch


def _unavailable() -> str | None:
    try:
        vendor_folder()
    except OracleSetupError as exc:
        return str(exc)
    return None


UNAVAILABLE = _unavailable()


def pytest_collection_modifyitems(config, items):
    if UNAVAILABLE is None:
        return
    skip = pytest.mark.skip(reason=f"oracle unavailable: {UNAVAILABLE}")
    for item in items:  # the re-collected suites; test_deviations.py skips its oracle half
        if item.nodeid.startswith(("tests/oracle/test_engine_", "tests/oracle/test_subgroups_")):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _also_on_the_oracle(request):
    """Every launch of the test through the harness is compared with the oracle."""
    node = request.node.nodeid

    def hook(*launch):
        compare_launch(*launch, node=node)

    harness.LAUNCH_HOOKS.append(hook)
    helpers.LAUNCH_HOOKS.append(hook)
    yield
    harness.LAUNCH_HOOKS.remove(hook)
    helpers.LAUNCH_HOOKS.remove(hook)


def pytest_sessionfinish(session):
    """With ``SGVM_ORACLE_TALLY=PREFIX`` each process (xdist workers too) writes its tally
    to ``PREFIX.<pid>.json``."""
    prefix = os.environ.get("SGVM_ORACLE_TALLY")
    if prefix and TALLY.tests:
        Path(f"{prefix}.{os.getpid()}.json").write_text(json.dumps({
            "tests": sorted(TALLY.tests), "agreed": TALLY.agreed,
            "allowed": dict(TALLY.allowed), "excluded": dict(TALLY.excluded),
            "disagreed": TALLY.disagreed}))


def pytest_terminal_summary(terminalreporter):
    if not TALLY.tests:
        return
    t = TALLY
    terminalreporter.write_line(
        f"oracle: {len(t.tests)} tests ran launches on both; launches: {t.agreed} agreed, "
        f"{sum(t.allowed.values())} within a listed difference {dict(t.allowed)}, "
        f"{sum(t.excluded.values())} not compared {dict(t.excluded)}, "
        f"{len(t.disagreed)} disagreed")
