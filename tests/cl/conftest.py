"""Fixtures for the host API tests."""

from __future__ import annotations

import pytest

import sgvm.cl as cl


@pytest.fixture
def ctx() -> cl.Context:
    return cl.create_some_context(interactive=False)


@pytest.fixture
def queue(ctx: cl.Context) -> cl.CommandQueue:
    return cl.CommandQueue(ctx)


@pytest.fixture
def device(ctx: cl.Context) -> cl.Device:
    return ctx.devices[0]


def raises_cl(code: str):
    """``pytest.raises`` for a ``cl.Error`` with OpenCL error ``code`` (e.g. "CL_INVALID_VALUE")."""
    return pytest.raises(cl.Error, match=code.removeprefix("CL_"))
