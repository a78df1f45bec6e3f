"""Each built-in of the specs, in each type they list, becomes its SPIR-V instruction."""

from __future__ import annotations

import re

import pytest

import sgvm
from sgvm.compiler.imports import called_imports

from .conftest import disassemble, functions, validate
from .spec_cases import CASES, Case

PRAGMAS = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"


def _program(cases: list[Case]) -> str:
    return PRAGMAS + "\n".join(c.source for c in cases) + "\n"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """All cases compiled in one OpenCL C 2.0 program (one clang run), disassembled."""
    tmp = tmp_path_factory.mktemp("spec")
    spirv = sgvm.compile(_program(CASES), "-cl-std=CL2.0")
    return {"spirv": spirv, "functions": functions(disassemble(spirv, tmp)), "tmp": tmp}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.builtin}[{c.type}]")
def test_builtin_lowers_to_instruction(case: Case, compiled: dict) -> None:
    body = compiled["functions"][case.kernel]
    assert any(re.search(case.expect, line) for line in body), "\n".join(body)
    assert not any("OpFunctionCall" in line for line in body), "\n".join(body)


def test_spec_module_is_valid(compiled: dict) -> None:
    assert called_imports(compiled["spirv"]) == []
    validate(compiled["spirv"], compiled["tmp"])


@pytest.mark.parametrize("std", ["CL1.2", "CL3.0"])
def test_spec_builtins_other_versions(std: str, tmp_path) -> None:
    """The Intel built-ins need only OpenCL 1.2; everything also builds as OpenCL C 3.0."""
    cases = [c for c in CASES if not c.cl20_only] if std == "CL1.2" else CASES
    spirv = sgvm.compile(_program(cases), f"-cl-std={std}")
    assert called_imports(spirv) == []
    validate(spirv, tmp_path)


def test_spirv_extensions_declared(compiled: dict, tmp_path) -> None:
    dis = disassemble(compiled["spirv"], tmp_path)
    assert 'OpExtension "SPV_INTEL_subgroups"' in dis
    for cap in ("SubgroupShuffleINTEL", "SubgroupBufferBlockIOINTEL", "SubgroupImageBlockIOINTEL"):
        assert f"OpCapability {cap}" in dis
