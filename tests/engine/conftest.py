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


@pytest.fixture(params=["checked", "unchecked"])
def checks(request, monkeypatch):
    """Each variant with checks on (the default) and off (``SGVM_BOUNDS=0``)."""
    if request.param == "unchecked":
        monkeypatch.setenv("SGVM_BOUNDS", "0")
    return request.param
