"""Hand-assembled modules (spirv-as text) for what clang does not emit.

``spec``: spec constants (SpecId, OpSpecConstantOp, spec-sized arrays),
OpConstantSampler, signed and 64-bit/half/double constants, decoration groups,
execution modes, OpLine, a 64-bit OpSwitch. ``debug``: SPIR-V 1.6 with
NonSemantic.Shader.DebugInfo.100 DebugLine, OpExecutionModeId, OpDecorateId,
OpTypeForwardPointer. ``names``: spirv-dis friendly-name corner cases (clashing,
empty and odd OpNames, BuiltIn names, special float constants) and
OpenCL.DebugInfo.100.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SPIRV_AS = Path(sys.executable).with_name("spirv-as")

SOURCES: dict[str, tuple[str, str]] = {
    "handmade spec": ("spv1.2", r"""
               OpCapability Kernel
               OpCapability Addresses
               OpCapability Int64
               OpCapability Int16
               OpCapability Float16
               OpCapability Float64
               OpCapability LiteralSampler
               OpCapability SubgroupDispatch
               OpCapability Linkage
          %1 = OpExtInstImport "OpenCL.std"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main" %gid
               OpExecutionMode %main LocalSize 8 4 2
               OpExecutionMode %main SubgroupSize 16
               OpExecutionMode %main ContractionOff
               OpExecutionMode %main SubgroupsPerWorkgroup 4
               OpExecutionMode %main VecTypeHint 4
               OpExecutionMode %main LocalSizeHint 2 2 2
          %s = OpString "kernel.cl"
               OpSource OpenCL_C 300000 %s "kernel source"
               OpName %main "main"
               OpName %gid "gid"
               OpName %x "x"
               OpName %x_0 "x"
               OpName %pair "pair"
               OpMemberName %pair 0 "first"
               OpMemberName %pair 1 "second"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
               OpDecorate %sc_len SpecId 7
               OpDecorate %sc_flag SpecId 3
               OpDecorate %sc_big SpecId 9
               OpMemberDecorate %pair 0 Volatile
               OpMemberDecorate %pair 1 Restrict
               OpDecorate %grp Restrict
               OpDecorate %grp Volatile
        %grp = OpDecorationGroup
               OpGroupDecorate %grp %p0 %p1
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %short = OpTypeInt 16 1
      %ulong = OpTypeInt 64 0
       %long = OpTypeInt 64 1
      %float = OpTypeFloat 32
       %half = OpTypeFloat 16
     %double = OpTypeFloat 64
    %v3ulong = OpTypeVector %ulong 3
    %v2float = OpTypeVector %float 2
    %sampler = OpTypeSampler
     %uint_0 = OpConstant %uint 0
     %uint_5 = OpConstant %uint 5
    %int_n42 = OpConstant %int -42
  %short_n3 = OpConstant %short -3
   %long_big = OpConstant %long -81985529216486896
  %ulong_max = OpConstant %ulong 18446744073709551615
   %half_1p5 = OpConstant %half 1.5
  %half_neg = OpConstant %half -0.25
  %float_pi = OpConstant %float 3.14159274
  %float_neg = OpConstant %float -1.5e-10
 %double_e = OpConstant %double 2.718281828459045
 %double_neg = OpConstant %double -1e300
       %true = OpConstantTrue %bool
      %false = OpConstantFalse %bool
       %vec2 = OpConstantComposite %v2float %float_pi %float_neg
      %vnull = OpConstantNull %v2float
        %smp = OpConstantSampler %sampler ClampToEdge 1 Linear
     %sc_len = OpSpecConstant %uint 4
    %sc_flag = OpSpecConstantTrue %bool
     %sc_big = OpSpecConstant %ulong 4294967296
     %sc_sum = OpSpecConstantOp %uint IAdd %sc_len %uint_5
     %sc_sel = OpSpecConstantOp %uint Select %sc_flag %sc_len %uint_0
   %sc_comp = OpSpecConstantComposite %v2float %float_pi %float_pi
      %arr_t = OpTypeArray %float %sc_len
     %arr5_t = OpTypeArray %int %uint_5
       %pair = OpTypeStruct %long %double
  %ptr_in_v3 = OpTypePointer Input %v3ulong
  %ptr_cw_f = OpTypePointer CrossWorkgroup %float
  %ptr_wg_arr = OpTypePointer Workgroup %arr_t
  %ptr_fn_pair = OpTypePointer Function %pair
     %fn_t = OpTypeFunction %void %ptr_cw_f %ptr_cw_f %long
        %gid = OpVariable %ptr_in_v3 Input
     %shared = OpVariable %ptr_wg_arr Workgroup
       %main = OpFunction %void None %fn_t
         %p0 = OpFunctionParameter %ptr_cw_f
         %p1 = OpFunctionParameter %ptr_cw_f
        %sel = OpFunctionParameter %long
      %entry = OpLabel
        %tmp = OpVariable %ptr_fn_pair Function
               OpLine %s 10 3
          %g = OpLoad %v3ulong %gid Aligned 32
         %g0 = OpCompositeExtract %ulong %g 0
               OpLine %s 11 7
          %x = OpInBoundsPtrAccessChain %ptr_cw_f %p1 %g0
        %x_0 = OpLoad %float %x Aligned 4
               OpNoLine
         %fm = OpExtInst %float %1 fma %x_0 %float_pi %float_neg
               OpSwitch %sel %default -2 %case1 4294967296 %case2 7 %case1
      %case1 = OpLabel
               OpStore %p0 %fm Volatile|Aligned 4
               OpBranch %default
      %case2 = OpLabel
               OpLine %s 20 1
               OpStore %p0 %x_0
               OpBranch %default
    %default = OpLabel
               OpReturn
               OpFunctionEnd
"""),
    "handmade debug": ("spv1.6", r"""
               OpCapability Kernel
               OpCapability Addresses
               OpCapability Int64
               OpCapability Linkage
               OpExtension "SPV_KHR_non_semantic_info"
          %1 = OpExtInstImport "OpenCL.std"
         %dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main"
               OpExecutionModeId %main LocalSizeId %uint_8 %uint_1 %uint_1
       %file = OpString "dir/k.cl"
               OpName %node "node"
               OpName %main "main"
               OpDecorateId %p AlignmentId %uint_16
               OpDecorate %grp Volatile
        %grp = OpDecorationGroup
               OpGroupMemberDecorate %grp %node 1
               OpTypeForwardPointer %node_ptr CrossWorkgroup
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_8 = OpConstant %uint 8
    %uint_16 = OpConstant %uint 16
    %uint_12 = OpConstant %uint 12
    %uint_14 = OpConstant %uint 14
       %node = OpTypeStruct %uint %node_ptr
   %node_ptr = OpTypePointer CrossWorkgroup %node
  %uint_ptr = OpTypePointer CrossWorkgroup %uint
       %fn_t = OpTypeFunction %void %node_ptr %ulong
        %src = OpExtInst %void %dbg DebugSource %file
       %main = OpFunction %void None %fn_t
          %p = OpFunctionParameter %node_ptr
        %sel = OpFunctionParameter %ulong
      %entry = OpLabel
         %l1 = OpExtInst %void %dbg DebugLine %src %uint_12 %uint_12 %uint_8 %uint_16
          %a = OpInBoundsPtrAccessChain %uint_ptr %p %uint_1 %uint_0
          %v = OpLoad %uint %a Aligned 4
         %l2 = OpExtInst %void %dbg DebugLine %src %uint_14 %uint_14 %uint_1 %uint_1
          %w = OpIAdd %uint %v %uint_1
         %nl = OpExtInst %void %dbg DebugNoLine
               OpSwitch %sel %done 0 %body 18446744073709551615 %body 4294967296 %done
       %body = OpLabel
               OpStore %a %w Aligned 4
               OpBranch %done
       %done = OpLabel
               OpReturn
               OpFunctionEnd
"""),
    "handmade names": ("spv1.0", r"""
               OpCapability Kernel
               OpCapability Addresses
               OpCapability Int8
               OpCapability Int16
               OpCapability Float16
               OpCapability Linkage
          %1 = OpExtInstImport "OpenCL.std"
          %2 = OpExtInstImport "OpenCL.DebugInfo.100"
               OpMemoryModel Physical32 OpenCL
               OpEntryPoint Kernel %main "main" %gid %lid %wd
        %str = OpString "names.cl"
               OpSource OpenCL_C 120000
               OpName %u "uint"
               OpName %blank ""
               OpName %odd "a b-c.d"
               OpName %main "main"
               OpName %dup "dup"
               OpName %dup2 "dup"
               OpName %dup3 "dup_0"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %wd BuiltIn WorkDim
       %void = OpTypeVoid
       %bool = OpTypeBool
      %uchar = OpTypeInt 8 0
     %ushort = OpTypeInt 16 0
          %u = OpTypeInt 32 0
       %half = OpTypeFloat 16
      %float = OpTypeFloat 32
     %v3uint = OpTypeVector %u 3
     %opaque = OpTypeOpaque "struct.my thing"
      %event = OpTypeEvent
        %dsc = OpExtInst %void %2 DebugSource %str
         %cu = OpExtInst %void %2 DebugCompilationUnit 65536 4 %dsc OpenCL_C
     %uint_1 = OpConstant %u 1
     %uint_1b = OpConstant %u 1
  %uchar_255 = OpConstant %uchar 255
  %ushort_65535 = OpConstant %ushort 65535
     %h_inf = OpConstant %half 0x1p+16
     %h_den = OpConstant %half 0x1p-24
    %f_nan = OpConstant %float 0x1.8p+128
    %f_inf = OpConstant %float -0x1p+128
    %f_den = OpConstant %float 0x1p-149
   %f_nzero = OpConstant %float -0
   %f_big = OpConstant %float 1e+30
      %blank = OpConstantTrue %bool
        %odd = OpConstantFalse %bool
     %arr_t = OpTypeArray %float %uint_1
   %ptr_in = OpTypePointer Input %v3uint
   %ptr_in_u = OpTypePointer Input %u
  %ptr_fn_ev = OpTypePointer Function %event
   %ptr_op = OpTypePointer CrossWorkgroup %opaque
       %fn_t = OpTypeFunction %void %ptr_op
        %gid = OpVariable %ptr_in Input
        %lid = OpVariable %ptr_in Input
         %wd = OpVariable %ptr_in_u Input
       %main = OpFunction %void None %fn_t
        %dup = OpFunctionParameter %ptr_op
      %entry = OpLabel
       %dup2 = OpLoad %v3uint %gid
       %dup3 = OpLoad %v3uint %lid
               OpLine %str 3 14
               OpReturn
               OpFunctionEnd
"""),
}


def assemble(text: str, target_env: str) -> bytes:
    """Assemble with SPIRV-Tools' spirv-as (independent of sgvm's writer)."""
    with tempfile.TemporaryDirectory(prefix="sgvm-asm-") as tmp:
        src, out = Path(tmp) / "m.spvasm", Path(tmp) / "m.spv"
        src.write_text(text)
        subprocess.run([str(SPIRV_AS), "--target-env", target_env, str(src), "-o", str(out)],
                       check=True, capture_output=True)
        return out.read_bytes()


def handmade() -> dict[str, bytes]:
    """Every module of SOURCES, assembled; empty when spirv-as is not installed."""
    if not SPIRV_AS.exists():
        return {}
    return {name: assemble(text, env) for name, (env, text) in SOURCES.items()}


def big_endian(data: bytes) -> bytes:
    """The same module with every word byte-swapped."""
    return np.frombuffer(data, dtype="<u4").astype(">u4").tobytes()
