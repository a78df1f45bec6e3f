"""tests/subgroups/test_handmade.py, every launch also on the oracle (conftest.py)."""

from subgroups.test_handmade import *  # noqa: F403
