"""tests/engine/test_pointers.py, every launch also on the oracle (conftest.py)."""

from engine.test_pointers import *  # noqa: F403
