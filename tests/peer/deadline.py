"""A pytest plugin for long suites: ``--deadline SECONDS`` fails any test that has not finished
within SECONDS (setup, call and teardown together) and goes on with the next.

The alarm (SIGALRM, main thread) raises pytest's ``Failed`` wherever the test is; the
report then says that the deadline passed, whatever the exception turned into on its
way out (a kernel launch interrupted inside an OpenCL call fails with an OpenCL error).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

_expired: set[str] = set()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--deadline", type=float, default=0.0, metavar="SECONDS",
                     help="fail a test that runs longer than SECONDS (0: no limit)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    seconds = item.config.getoption("deadline")
    if not seconds:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        _expired.add(item.nodeid)
        pytest.fail(f"no result within the deadline of {seconds:g} s", pytrace=False)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if item.nodeid in _expired and report.failed:
        report.longrepr = f"no result within the deadline of {item.config.getoption('deadline'):g} s"
