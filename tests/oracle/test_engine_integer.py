"""tests/engine/test_integer.py, every launch also on the oracle (conftest.py)."""

from engine.test_integer import *  # noqa: F403
