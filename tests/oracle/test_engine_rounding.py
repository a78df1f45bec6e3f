"""tests/engine/test_rounding.py, every launch also on the oracle (conftest.py)."""

from engine.test_rounding import *  # noqa: F403
