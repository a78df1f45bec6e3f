"""No OpenCL C 2.0 built-in may stay a call to an undefined (Import) function."""

from __future__ import annotations

from pathlib import Path

import pytest

import sgvm
from sgvm.compiler.imports import called_imports

from .conftest import disassemble, validate

KERNELS = Path(__file__).with_name("kernels")


def _source() -> str:
    return (KERNELS / "cl20_builtins.cl").read_text()


@pytest.mark.parametrize("options", ["-cl-std=CL2.0", "-cl-std=CL3.0", "-cl-std=CL2.0 -cl-opt-disable"])
def test_every_cl20_builtin_lowers(options: str, tmp_path) -> None:
    spirv = sgvm.compile(_source(), options, filename=str(KERNELS / "cl20_builtins.cl"))
    assert called_imports(spirv) == []
    validate(spirv, tmp_path)


def test_workarounds_emit_the_right_instructions(tmp_path) -> None:
    spirv = sgvm.compile(_source(), "-cl-std=CL2.0")
    dis = disassemble(spirv, tmp_path)
    for op in ("OpMemoryBarrier", "OpGenericCastToPtrExplicit", "OpAtomicExchange", "OpAtomicSMin",
               "OpAtomicUMax", "OpAtomicLoad", "OpAtomicStore", "OpImageRead %v4half", "OpFConvert %half",
               "OpConvertSToF %double", "OpConvertUToF %v4half"):
        assert op in dis, op
    assert "FPRoundingMode RTZ" in dis and "FPRoundingMode RTN" in dis


def test_image_channel_queries_lower(tmp_path) -> None:
    """get_image_channel_order (left undefined by clang 22) and get_image_channel_data_type
    become OpImageQueryOrder / OpImageQueryFormat plus the CL enum offsets."""
    spirv = sgvm.compile("kernel void k(read_only image2d_t i, global int *o) {"
                         " o[0] = get_image_channel_order(i); o[1] = get_image_channel_data_type(i); }",
                         "-cl-std=CL2.0")
    assert called_imports(spirv) == []
    dis = disassemble(spirv, tmp_path)
    assert "OpImageQueryOrder" in dis and "OpImageQueryFormat" in dis
    assert " 4272" in dis and " 4304" in dis  # CLK_R, CLK_SNORM_INT8
    validate(spirv, tmp_path)


def test_undefined_functions_are_reported() -> None:
    """A call that stays a call to an undefined function fails the build, naming it."""
    with pytest.raises(sgvm.BuildError) as err:
        sgvm.compile("int __attribute__((overloadable)) helper(int); kernel void k(global int *o) { o[0] = helper(1); }", "-cl-std=CL2.0")
    assert "helper" in err.value.what
    assert "_Z6helperi" in err.value.log
