"""The differential suite: every kernel test in tests/engine, tests/subgroups and
tests/images runs on the NumPy engine and on the native backend (docs/native.md).

Each such test gets a ``[numpy]`` and a ``[native]`` variant; the variant sets the device
the test harnesses launch on and ``SGVM_DEVICE`` (``sgvm.cl`` contexts). With
``SGVM_TEST_DEVICE=cuda`` (the GPU runs, docs/cuda.md) the harnesses use the CUDA device
instead and nothing is parametrised.

Every other test runs on the NumPy engine, the reference (``SGVM_DEVICE=numpy`` unless
set): they test the platform, the compiler, the checks and the tools, whose kernels the
differential suite already runs on both backends; compiling each of their kernels natively
(the default device, docs/native.md) cost CI minutes. The tests of the default device
itself unset it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sgvm.runtime.device import ALIASES, DEVICES

os.environ.setdefault("SGVM_DEVICE", "numpy")
DIFFERENTIAL = ("engine", "subgroups", "images")
BACKENDS = ("numpy", "native")
_TESTS = Path(__file__).resolve().parent


def _differential(path: Path) -> bool:
    try:
        rel = path.resolve().relative_to(_TESTS)
    except ValueError:
        return False
    return rel.parts[0] in DIFFERENTIAL and os.environ.get("SGVM_TEST_DEVICE", "") == ""


# The modules that take longest in CI with an empty cache (most of it the native builds of
# their kernels), slowest first: run first, so that `--dist loadfile`'s last module is a
# short one and no worker runs alone at the end (a cold run on 2 cores: 16 → 14 minutes).
SLOW = ("subgroups/test_collectives.py", "engine/test_sat_conversions.py",
        "fuzz/test_short_run.py", "subgroups/test_shuffles.py",
        "subgroups/test_khr_native_bits.py", "subgroups/test_khr_non_uniform.py",
        "subgroups/test_khr_shuffles.py", "subgroups/test_block_io.py", "subgroups/test_fused.py",
        "subgroups/test_uniform_loops.py", "subgroups/test_regions.py", "engine/test_images.py",
        "subgroups/test_group_uniform.py", "subgroups/test_work_group.py",
        "engine/test_kernels.py", "subgroups/test_media_block.py", "subgroups/test_khr_ballot.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of ``SLOW`` first, in its order; the others after, as collected."""
    rank = {name: k for k, name in enumerate(SLOW)}

    def key(item: pytest.Item) -> int:
        try:
            rel = item.path.resolve().relative_to(_TESTS).as_posix()
        except ValueError:
            return len(SLOW)
        return rank.get(rel, len(SLOW))
    items.sort(key=key)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if _differential(Path(str(metafunc.definition.fspath))):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


@pytest.fixture(autouse=True)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The backend this variant of a differential test runs on (None elsewhere). A
    ``[native]`` variant fails where a kernel it launched ran on the NumPy engine because
    its C++ did not compile or was too large to build (unless marked ``build_fails``): the
    results would be right, and the native backend untested."""
    name = getattr(request, "param", None)
    if name is None:
        yield None
        return
    from engine import harness  # tests/ is on sys.path (this conftest's folder)
    from subgroups import helpers

    device = DEVICES[ALIASES.get(name, name)]
    monkeypatch.setattr(harness, "DEVICE", device)
    monkeypatch.setattr(helpers, "DEVICE", device)
    monkeypatch.setenv("SGVM_DEVICE", name)
    from sgvm.engine.native import backend as native

    before = set(native._ANNOUNCED)
    yield name
    if request.node.get_closest_marker("build_fails"):
        return
    broken = [f"{kernel}: {why}" for key, why in native._ANNOUNCED.items()
              if key not in before and ("did not compile" in why or "native backend builds" in why)
              for kernel in key[1:]]
    assert not broken, f"the native backend's C++ did not build: {broken}"


@pytest.fixture
def runs_natively(backend):
    """Fails a ``[native]`` variant where a kernel it launched ran on the NumPy engine for
    any reason (modules whose kernels all run natively use it: ``pytestmark``)."""
    from sgvm.engine.native import backend as native

    before = set(native._ANNOUNCED)
    yield
    fell = {k: why for k, why in native._ANNOUNCED.items() if k not in before}
    assert backend != "native" or not fell, f"ran on the NumPy engine: {list(fell.values())}"
