"""convert_<int>_sat(<int>): clang 22 picks OpSatConvertUToS / OpSatConvertSToU from the
destination's signedness alone; the headers route same-signedness sources around it."""

from __future__ import annotations

import re

import pytest

import sgvm

from .conftest import disassemble

SIGNED = ("char", "short", "int", "long")
UNSIGNED = ("uchar", "ushort", "uint", "ulong")
TYPES = SIGNED + UNSIGNED


def _source() -> str:
    out = []
    for d in TYPES:
        for s in TYPES:
            if d != s:
                out.append(f"kernel void k_{d}_{s}(global {s} *a, global {d} *b)"
                           f" {{ b[0] = convert_{d}_sat(a[0]); }}")
                out.append(f"kernel void v_{d}_{s}(global {s}4 *a, global {d}4 *b)"
                           f" {{ b[0] = convert_{d}4_sat_rte(a[0]); }}")
    return "\n".join(out)


@pytest.fixture(scope="module")
def bodies(tmp_path_factory) -> dict[str, str]:
    spirv = sgvm.compile(_source(), "-cl-std=CL2.0")
    dis = disassemble(spirv, tmp_path_factory.mktemp("sat"))
    parts = re.split(r"\n\s*%(\w+) = OpFunction ", dis)
    return {parts[i]: parts[i + 1].split("OpFunctionEnd")[0] for i in range(1, len(parts), 2)}


@pytest.mark.parametrize("d,s", [(d, s) for d in TYPES for s in TYPES if d != s])
def test_saturating_instruction_matches_the_source_signedness(bodies, d: str, s: str) -> None:
    for kind in "kv":
        body = bodies[f"{kind}_{d}_{s}"]
        if (d in SIGNED) == (s in SIGNED):
            # OpSatConvertUToS reads a signed source as unsigned (and SToU the reverse).
            assert "OpSatConvert" not in body, (d, s)
        elif d in SIGNED:
            assert "OpSatConvertUToS" in body and "OpSatConvertSToU" not in body
        else:
            assert "OpSatConvertSToU" in body and "OpSatConvertUToS" not in body
