"""tests/engine/test_coverage.py, every launch also on the oracle (conftest.py)."""

from engine.test_coverage import *  # noqa: F403
