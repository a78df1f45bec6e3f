"""A SPIR-V module assembled by hand with sgvm.spirv's writer (not clang): OpGroupIAdd
on 8-bit integers (cl_intel_subgroups_char's SPIR-V section allows Int8 for the group
instructions) and OpSubgroupShuffleINTEL; and the observer events of collectives."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.engine.cpu.collective import CollectiveEvent
from sgvm.spirv import Header, Module, Operand, read, write
from sgvm.spirv import grammar as G
from sgvm.spirv.writer import make_instruction

from .helpers import build, run


def _assemble() -> bytes:
    g = G.load()

    def enum(kind: str, name: str) -> Operand:
        return Operand(kind, g.enum_value(kind, name))

    def ids(*values: int) -> list[Operand]:
        return [Operand("IdRef", v) for v in values]

    (void, uchar, uint, ptr, ptr_in, fn_t, scope, one, lid_var, main, a, o, label, lid, pa, x,
     total, k, sh, r, po) = range(1, 22)
    i = make_instruction
    insts = [
        *(i("OpCapability", None, None, enum("Capability", c)) for c in
          ("Addresses", "Kernel", "Int8", "Int64", "Groups", "SubgroupShuffleINTEL")),
        i("OpExtension", None, None, Operand("LiteralString", "SPV_INTEL_subgroups")),
        i("OpMemoryModel", None, None, enum("AddressingModel", "Physical64"),
          enum("MemoryModel", "OpenCL")),
        i("OpEntryPoint", None, None, enum("ExecutionModel", "Kernel"), Operand("IdRef", main),
          Operand("LiteralString", "hand"), Operand("IdRef", lid_var)),
        i("OpExecutionMode", None, None, Operand("IdRef", main),
          enum("ExecutionMode", "SubgroupSize"), Operand("LiteralInteger", 8)),
        i("OpDecorate", None, None, Operand("IdRef", lid_var), enum("Decoration", "BuiltIn"),
          enum("BuiltIn", "SubgroupLocalInvocationId")),
        i("OpTypeVoid", None, void),
        i("OpTypeInt", None, uchar, Operand("LiteralInteger", 8), Operand("LiteralInteger", 0)),
        i("OpTypeInt", None, uint, Operand("LiteralInteger", 32), Operand("LiteralInteger", 0)),
        i("OpTypePointer", None, ptr, enum("StorageClass", "CrossWorkgroup"), Operand("IdRef", uchar)),
        i("OpTypePointer", None, ptr_in, enum("StorageClass", "Input"), Operand("IdRef", uint)),
        i("OpTypeFunction", None, fn_t, *ids(void, ptr, ptr)),
        i("OpConstant", uint, scope, Operand("LiteralContextDependentNumber", (3,))),  # Subgroup
        i("OpConstant", uint, one, Operand("LiteralContextDependentNumber", (1,))),
        i("OpVariable", ptr_in, lid_var, enum("StorageClass", "Input")),
        i("OpFunction", void, main, Operand("FunctionControl", 0), Operand("IdRef", fn_t)),
        i("OpFunctionParameter", ptr, a),
        i("OpFunctionParameter", ptr, o),
        i("OpLabel", None, label),
        i("OpLoad", uint, lid, *ids(lid_var)),
        i("OpInBoundsPtrAccessChain", ptr, pa, *ids(a, lid)),
        i("OpLoad", uchar, x, *ids(pa)),
        i("OpGroupIAdd", uchar, total, Operand("IdScope", scope),
          enum("GroupOperation", "Reduce"), Operand("IdRef", x)),
        i("OpBitwiseXor", uint, k, *ids(lid, one)),
        i("OpSubgroupShuffleINTEL", uchar, sh, *ids(x, k)),
        i("OpIAdd", uchar, r, *ids(total, sh)),
        i("OpInBoundsPtrAccessChain", ptr, po, *ids(o, lid)),
        i("OpStore", None, None, *ids(po, r)),
        i("OpReturn"),
        i("OpFunctionEnd"),
    ]
    return write(Module(Header((1, 4), 0, 22, 0), insts))


@pytest.mark.parametrize("n", [8, 6])
def test_handmade_uchar_reduce_and_shuffle(n):
    m = read(_assemble())
    a = np.array([200, 100, 7, 250, 1, 2, 3, 4][:n], np.uint8)
    (_, o), _ = run(m, "hand", [a, np.zeros(n, np.uint8)], (n,), (n,))
    total = int(a.sum()) % 256  # 8-bit add wraps
    np.testing.assert_array_equal(o, [(total + int(a[lane ^ 1])) % 256 for lane in range(n)])


class Recorder:
    def __init__(self) -> None:
        self.events: list[CollectiveEvent] = []

    def collective(self, batch, event: CollectiveEvent) -> None:
        self.events.append(event)


def test_observer_events():
    """Collective events carry the semantics' diagnostics for the checkers."""
    m = build(r"""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void ev(global int* a) {
  uint l = get_sub_group_local_id();
  int v = a[get_global_id(0)];
  v = intel_sub_group_shuffle(v, l + 4);            /* lanes 4..7 out of range */
  if (l < 3) v += sub_group_reduce_add(v);           /* divergent collective */
  v += sub_group_broadcast(v, l);                    /* id not uniform */
  a[get_global_id(0)] = v;
}
""")
    rec = Recorder()
    run(m, "ev", [np.arange(8, dtype=np.int32)], (8,), (8,), observers=[rec])
    by_op = {e.op: e for e in rec.events}
    shuffle = by_op["OpSubgroupShuffleINTEL"]
    np.testing.assert_array_equal(shuffle.diagnostics["out_of_range"][0], [0] * 4 + [1] * 4)
    reduce = by_op["OpGroupIAdd"]
    assert reduce.scope == "Subgroup" and reduce.operation == "Reduce"
    assert reduce.divergent().tolist() == [True]
    bcast = by_op["OpGroupBroadcast"]
    assert bcast.diagnostics["not_uniform"].tolist() == [True]
