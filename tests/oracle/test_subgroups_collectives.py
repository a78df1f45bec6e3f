"""tests/subgroups/test_collectives.py, every launch also on the oracle (conftest.py)."""

from subgroups.test_collectives import *  # noqa: F403
