"""Collectives of one full sub-group as vector operations, for blocks run sub-group by
sub-group (``fused.py``; docs/native.md, "Sub-group by sub-group").

There every lane of the sub-group is active and its ``SG_SIZE`` values lie side by side in
their array, so a collective can load them as one vector of clang's ``ext_vector_type``:

* an Intel shuffle whose index is a constant takes each lane's value from a source lane
  known when rendering: one ``__builtin_shufflevector`` (a permute in registers, where the
  lane loop reads the values back with a gather). A source lane out of range gives 0, as
  the loop does (``collectives._shuffle``); such a constant keeps the loop;
* an inclusive or exclusive scan of integers by add, min or max takes log2(``SG_SIZE``)
  steps, each combining every lane with the lane ``d`` below it (the identity below lane
  ``d``). Exact: on integers these operations are associative (add modulo 2^width), so
  any grouping of the lanes ``0 … j`` gives lane ``j`` the bits the fold in lane order
  gives; the exclusive scan is the inclusive one moved up a lane, the identity at lane 0
  (the fold from the identity over no lane). Float scans keep the fold in lane order.
"""

from __future__ import annotations

import re

from ...spirv import Instruction
from ..clower import ctypes_ as C
from ..clower.ops import constant_int, ids

_ELEMENTS = {"u8", "u16", "u32", "u64", "float", "double", "hbits"}


def _at(x: str, lane: str) -> str | None:
    """The address of lane ``lane``'s element of lane value ``x`` (``r24[l - sg_o]``, ``r24[l - sg_c]``), or
    None where ``x`` is not one (a constant, an argument)."""
    if not re.search(r"\[l( - sg_[oc])?\]$", x):
        return None
    return "&" + re.sub(r"\[l( - sg_[oc])?\]$", f"[{lane}\\1]", x)


def _vector(ct: str, S: int) -> str:
    return f"typedef {ct} V_ __attribute__((ext_vector_type({S})));"


def shuffle(r, inst: Instruction, first: int, second: int) -> list[str] | None:
    """The C of Intel shuffle ``inst`` (values ``first``, ``second``: the lanes below and
    from ``S`` up of the rule's source index, as ``collectives._shuffle``) as one vector
    permute, or None (a non-constant index, one out of range, a value that is no lane
    array, a type without vectors)."""
    index = ids(inst)[-1]
    if index not in r.m.constants:
        return None
    c = constant_int(r, index) & 0xFFFFFFFF
    S = r.S
    o = inst.opname
    picks = []  # per lane: its source in (first, second) side by side, as the loop's rule
    for j in range(S):
        if o == "OpSubgroupShuffleINTEL":
            i = c if c < S else -1
        elif o == "OpSubgroupShuffleXorINTEL":
            i = j ^ c if j ^ c < S else -1
        elif o == "OpSubgroupShuffleDownINTEL":
            i = (j + c) & 0xFFFFFFFF  # below S the current value's lane, then the next's
        else:  # Up: lane j - c of the current value, below 0 the previous value's
            v = (j - c) & 0xFFFFFFFF
            v = v - (1 << 32) if v >= 1 << 31 else v
            i = v if 0 <= v < S else 2 * S + v if -S <= v < 0 else -1
        if not 0 <= i < 2 * S:
            return None
        picks.append(i)
    lines = []
    for j, s in enumerate(C.leaf_types(r.rtype(inst))):
        ct = C.scalar_ctype(s)
        a = _at(r.leaves(first)[j], "g0")
        b = _at(r.leaves(second)[j], "g0")
        out = _at(r.result_names(inst)[j], "g0")
        if ct not in _ELEMENTS or None in (a, b, out):
            return None
        lines.append(f"{{ {_vector(ct, S)} V_ a_, b_; __builtin_memcpy(&a_, {a}, sizeof a_); "
                     f"__builtin_memcpy(&b_, {b}, sizeof b_); "
                     f"V_ v_ = __builtin_shufflevector(a_, b_, {', '.join(map(str, picks))}); "
                     f"__builtin_memcpy({out}, &v_, sizeof v_); }}")
    return lines


def scan(r, inst: Instruction, kind: str, ident: str, operation: int) -> list[str] | None:
    """The C of integer scan ``inst`` (``kind``: add, smin, umin, smax, umax; ``ident``: its
    identity, a C expression; ``operation``: 1 inclusive, 2 exclusive) in log2(S) vector
    steps, or None (floats, values that are no lane arrays)."""
    S = r.S
    x = inst.operands[2].value
    lines = []
    for j, s in enumerate(C.leaf_types(r.rtype(inst))):
        src, out = _at(r.leaves(x)[j], "g0"), _at(r.result_names(inst)[j], "g0")
        if s.op != "Int" or None in (src, out):
            return None
        ct = C.signed_ctype(s) if kind in ("smin", "smax") else C.scalar_ctype(s)
        op = {"add": "v_ + t_", "smin": "__builtin_elementwise_min(v_, t_)",
              "umin": "__builtin_elementwise_min(v_, t_)",
              "smax": "__builtin_elementwise_max(v_, t_)",
              "umax": "__builtin_elementwise_max(v_, t_)"}[kind]
        steps = []
        d = 1
        while d < S:  # lane j combines with lane j - d, the identity below lane d
            picks = ", ".join(str(k - d if k >= d else S + k) for k in range(S))
            steps.append(f"{{ V_ t_ = __builtin_shufflevector(v_, i_, {picks}); v_ = {op}; }}")
            d *= 2
        if operation == 2:  # exclusive: the inclusive scan of the lanes below
            picks = ", ".join(str(k - 1 if k else S) for k in range(S))
            steps.append(f"v_ = __builtin_shufflevector(v_, i_, {picks});")
        lines.append(f"{{ {_vector(ct, S)} V_ v_, i_ = (V_)(({ct}){ident}); "
                     f"__builtin_memcpy(&v_, {src}, sizeof v_); {' '.join(steps)} "
                     f"__builtin_memcpy({out}, &v_, sizeof v_); }}")
    return lines
