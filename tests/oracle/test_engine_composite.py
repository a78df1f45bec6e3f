"""tests/engine/test_composite.py, every launch also on the oracle (conftest.py)."""

from engine.test_composite import *  # noqa: F403
