"""Fixtures shared by tests/engine's modules."""

import pytest

from sgvm.engine.native import backend as native_backend


@pytest.fixture
def own_record(backend, monkeypatch):
    """On the native variant: the native backend's own fault message (no NumPy re-run), so a
    fast path that skipped a check or named the wrong work-item fails."""
    if backend == "native":
        monkeypatch.setattr(native_backend, "_explain", lambda request: None)
    return backend
