"""tests/engine/test_groups.py, every launch also on the oracle (conftest.py)."""

from engine.test_groups import *  # noqa: F403
