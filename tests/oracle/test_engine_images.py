"""tests/engine/test_images.py, every launch also on the oracle (conftest.py)."""

from engine.test_images import *  # noqa: F403
