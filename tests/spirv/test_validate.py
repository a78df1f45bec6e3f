"""The structural validator: each rule refuses a hand-made invalid module (which spirv-val
refuses too) with SpirvValidationError naming the rule and word offset, before execution;
the host API reports CL_INVALID_BINARY; mutated modules reach the launch path and only
sgvm's own errors come out."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sgvm
from sgvm import SpirvValidationError, cl
from sgvm.errors import SgvmError
from sgvm.spirv import read
from sgvm.spirv.validate import validate

from .handmade import assemble
from .launch_fuzz import launch_all, parseable_mutants

VALID = r"""
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
        %pv3 = OpTypePointer Input %v3ulong
        %gid = OpVariable %pv3 Input
       %void = OpTypeVoid
         %pu = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %pu
        %one = OpConstant %uint 1
          %k = OpFunction %void None %fn
          %a = OpFunctionParameter %pu
      %entry = OpLabel
        %ids = OpLoad %v3ulong %gid Aligned 32
          %i = OpCompositeExtract %ulong %ids 0
          %p = OpInBoundsPtrAccessChain %pu %a %i
          %x = OpLoad %uint %p Aligned 4
          %y = OpIAdd %uint %x %one
               OpStore %p %y Aligned 4
               OpReturn
               OpFunctionEnd
"""
Y = "          %y = OpIAdd %uint %x %one\n"
# rule → (text replaced, replacement)
BROKEN = {
    "id-defined": (Y, "          %y = OpIAdd %uint %x %nowhere\n"),
    "operand-type": (Y, "          %y = OpIAdd %uint %x %i\n"),
    "operand-kind": (Y, "          %y = OpIAdd %uint %x %entry\n"),
    "dominance": ("          %x = OpLoad %uint %p Aligned 4\n" + Y,
                  Y.replace("%one", "%one") + "          %x = OpLoad %uint %p Aligned 4\n"),
    "entry-point": ('OpEntryPoint Kernel %k "k" %gid', 'OpEntryPoint Kernel %k "k" %one'),
    "function": ("%fn = OpTypeFunction %void %pu", "%fn = OpTypeFunction %uint %pu"),
    "operand-type:alignment": ("OpStore %p %y Aligned 4", "OpStore %p %y Aligned 6"),
    "type": ("%v3ulong = OpTypeVector %ulong 3", "%v3ulong = OpTypeVector %ulong 5"),
    "constant": ("        %one = OpConstant %uint 1\n",
                 "        %one = OpConstant %uint 1\n          %c = OpConstantComposite %v3ulong %one %one %one\n"),
}
SPIRV_VAL = Path(sys.executable).with_name("spirv-val")


def _assemble(text: str) -> bytes:
    try:
        return assemble(text, "spv1.2")
    except FileNotFoundError:
        pytest.skip("spirv-as not installed")


def test_valid_module_runs() -> None:
    a = np.arange(8, dtype=np.uint32)
    sgvm.run(_assemble(VALID), "k", (8,), None, a)
    assert a.tolist() == list(range(1, 9))


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_rule_refuses_an_invalid_module(case: str, tmp_path) -> None:
    old, new = BROKEN[case]
    rule = case.partition(":")[0]
    assert old in VALID
    data = _assemble(VALID.replace(old, new))
    if SPIRV_VAL.exists():  # an independent validator agrees the module is invalid
        (tmp_path / "m.spv").write_bytes(data)
        assert subprocess.run([str(SPIRV_VAL), str(tmp_path / "m.spv")], capture_output=True).returncode != 0
    module = read(data)
    with pytest.raises(SpirvValidationError) as err:
        validate(module)
    assert err.value.rule == rule
    assert str(err.value).startswith(f"invalid SPIR-V: word {err.value.offset}: {rule}: ")
    assert err.value.offset is not None and 5 <= err.value.offset < len(data) // 4
    prg = cl.Program(cl.create_some_context(), data)  # reads; the build refuses it
    with pytest.raises(cl.LogicError, match=f"INVALID_BINARY - invalid SPIR-V: word .*{rule}") as host:
        prg.build()
    assert host.value.code == -42  # CL_INVALID_BINARY
    with pytest.raises(cl.LogicError, match="INVALID_BINARY"):
        sgvm.run(data, "k", (8,), None, np.zeros(8, np.uint32))


def test_launch_validates_modules_from_any_path() -> None:
    """The engine's launch entry validates too (modules that bypass cl.Program)."""
    from sgvm.runtime.launch import launch
    from sgvm.runtime.ndrange import NDRange

    old, new = BROKEN["operand-kind"]
    module = read(_assemble(VALID.replace(old, new)))
    with pytest.raises(SpirvValidationError, match="operand-kind"):
        launch(module, "k", [], NDRange((8,)))


FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def test_mutated_modules_through_the_launch_path(corpus: dict[str, bytes], monkeypatch) -> None:
    """Parseable mutants of real modules are built and launched; only sgvm's errors may escape."""
    monkeypatch.setenv("SGVM_MAX_STEPS", "20000")
    bases = [corpus[k] for k in ("loops_calls -cl-std=CL2.0", "local_atomics -cl-std=CL2.0 -cl-opt-disable",
                                 "switch -cl-std=CL2.0", "structs -cl-std=CL2.0", "sub_group_misc -cl-std=CL2.0")
             if k in corpus]
    assert bases

    @FUZZ
    @given(st.integers(0, 2**32 - 1))
    def run(seed: int) -> None:
        (data,) = parseable_mutants(bases, 1, seed)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # printf output of the mutants
                launch_all(data)
        except SgvmError:
            pass

    run()
    assert os.environ["SGVM_MAX_STEPS"] == "20000"


def test_invalid_printf_format_returns_minus_one() -> None:
    """OpenCL C 6.15.14.3: printf returns -1 when it fails; a mutated format string once
    escaped as a ValueError from the CPU engine."""
    out = np.zeros(2, np.int32)
    result = sgvm.run('kernel void k(global int *o) { o[0] = printf("%]\\n"); o[1] = printf("ok\\n"); }',
                      "k", (1,), None, out, options="-w")
    assert out.tolist() == [-1, 0] and result.printf == "ok\n"
