"""tests/subgroups/test_block_io.py, every launch also on the oracle (conftest.py)."""

from subgroups.test_block_io import *  # noqa: F403
