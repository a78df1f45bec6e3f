"""tests/engine/test_local_memory.py, every launch also on the oracle (conftest.py)."""

from engine.test_local_memory import *  # noqa: F403
