"""tests/engine/test_control.py, every launch also on the oracle (conftest.py)."""

from engine.test_control import *  # noqa: F403
