"""Lane arrays the same at every lane of a run: a segment whose addresses read them runs a
copy reading one value instead (docs/native.md, "The code it generates").

A loop counter, a stride halved each iteration (``for (s = n / 2; s > 0; s >>= 1)``) or the
index of the body the n-body step reads (``p[j]``) is a phi, so a lane array; an address
computed from it is a gather for clang and is tested at every lane. Before such a segment
runs over a run of lanes, one loop compares each of these arrays at every lane of the run
with its first lane's. When all are equal, the pre-pass and the unchecked loop read that
one value (``sg_u<id>``): the addresses become the same at every lane or affine in the row,
so they load with plain vector loads or one scalar load and are tested at the row's ends
(``affine.py``). This is exact: each lane reads only its own element of a lane array, the
segment reads the element before writing it (a value the segment computes is not
replaced; a phi is written only by the edge the terminator takes, after every read), and
every lane of the run held the first lane's value.
"""

from __future__ import annotations

import re

from ...spirv import Instruction
from ..clower import ctypes_ as C


def candidates(r, insts: list[Instruction], addresses: set[int]
               ) -> dict[int, tuple[str, str, str]]:
    """The lane arrays the address computations of ``insts`` read: value id → (C name of the
    array, its C type, what its index subtracts from the lane: a bundle's local arrays, see
    regions.py); integers and pointers of one leaf that ``insts`` do not compute."""
    defined = {i.result_id for i in insts}
    out: dict[int, tuple[str, str, str]] = {}
    for inst in insts:
        if inst.result_id not in addresses:
            continue
        for vid in inst.ids():
            if vid in out or vid in defined or r.storage.get(vid) not in ("lane", "sg"):
                continue
            lts = C.leaf_types(r.type_of(vid))
            if len(lts) == 1 and lts[0].op in ("Int", "Pointer"):
                (name,) = r.leaves(vid)
                a, _, index = name.partition("[l")
                out[vid] = (a, C.scalar_ctype(lts[0]), index.removesuffix("]"))
    return out


def test(cands: dict[int, tuple[str, str, str]]) -> list[str]:
    """C: ``sg_uni`` (every candidate the same at every lane of the run) and the values."""
    decl = " ".join(f"{ct} sg_u{vid} = 0;" for vid, (_, ct, _) in cands.items())
    # "&" rather than "&&", against the first values held in locals: the loop vectorises
    same = " & ".join(f"({a}[l{o}] == sg_u{vid})" for vid, (a, _, o) in cands.items())
    first = " ".join(f"sg_u{vid} = {a}[sg_first{o}];" for vid, (a, _, o) in cands.items())
    return [f"    bool sg_uni = false; {decl}",
            f"    if (sg_run) {{ sg_uni = true; {first}",
            f"      for (u32 l = sg_first; l < sg_end; l++) sg_uni &= {same}; }}"]


def substitute(lines: list[str], cands: dict[int, tuple[str, str, str]]) -> list[str]:
    """``lines`` reading ``sg_u<id>`` for each candidate's element (its writes are kept)."""
    out = lines
    for vid, (a, _, o) in cands.items():
        read = re.compile(rf"(?<![\w]){re.escape(a)}\[l{re.escape(o)}\](?!\s*=(?!=))")
        out = [read.sub(f"sg_u{vid}", x) for x in out]
    return out
