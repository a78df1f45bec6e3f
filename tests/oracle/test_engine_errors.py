"""tests/engine/test_errors.py, every launch also on the oracle (conftest.py)."""

from engine.test_errors import *  # noqa: F403
