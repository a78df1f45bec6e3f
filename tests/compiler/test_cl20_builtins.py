"""No OpenCL C 2.0 built-in may stay a call to an undefined (Import) function."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import disassemble, validate

import sgvm
from sgvm.compiler.imports import called_imports

KERNELS = Path(__file__).with_name("kernels")


def _source(drop_channel_order: bool) -> str:
    src = (KERNELS / "cl20_builtins.cl").read_text()
    if drop_channel_order:
        src = src.replace("get_image_channel_order(", "get_image_channel_data_type(")
    return src


@pytest.mark.parametrize("options", ["-cl-std=CL2.0", "-cl-std=CL3.0", "-cl-std=CL2.0 -cl-opt-disable"])
def test_every_cl20_builtin_lowers(options: str, tmp_path) -> None:
    spirv = sgvm.compile(_source(True), options, filename=str(KERNELS / "cl20_builtins.cl"))
    assert called_imports(spirv) == []
    validate(spirv, tmp_path)


def test_workarounds_emit_the_right_instructions(tmp_path) -> None:
    spirv = sgvm.compile(_source(True), "-cl-std=CL2.0")
    dis = disassemble(spirv, tmp_path)
    for op in ("OpMemoryBarrier", "OpGenericCastToPtrExplicit", "OpAtomicExchange", "OpAtomicSMin",
               "OpAtomicUMax", "OpAtomicLoad", "OpAtomicStore", "OpImageRead %v4half", "OpFConvert %half",
               "OpConvertSToF %double", "OpConvertUToF %v4half"):
        assert op in dis, op
    assert "FPRoundingMode RTZ" in dis and "FPRoundingMode RTN" in dis


def test_get_image_channel_order_is_reported() -> None:
    """clang 22 cannot lower get_image_channel_order: the build fails naming it."""
    with pytest.raises(sgvm.BuildError) as err:
        sgvm.compile("kernel void k(read_only image2d_t i, global int *o) { o[0] = get_image_channel_order(i); }",
                     "-cl-std=CL2.0")
    assert "get_image_channel_order" in err.value.what
    assert "_Z23get_image_channel_order14ocl_image2d_ro" in err.value.log
