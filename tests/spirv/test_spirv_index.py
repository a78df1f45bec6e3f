"""The Module's indexes, checked against values derived by hand from the sources."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sgvm.spirv import Module, SourceLocation, read


def _by_name(m: Module, name: str) -> int:
    return next(i for i, n in m.names.items() if n == name)


def _values(m: Module, type_name: str) -> list:
    """Values of the OpConstants whose type spirv-dis would call ``type_name``."""
    kinds = {"uint": ("Int", 32, False), "int": ("Int", 32, True), "short": ("Int", 16, True),
             "long": ("Int", 64, True), "ulong": ("Int", 64, False), "half": ("Float", 16, False),
             "float": ("Float", 32, False), "double": ("Float", 64, False),
             "uchar": ("Int", 8, False), "ushort": ("Int", 16, False)}
    op, width, signed = kinds[type_name]
    return [c.value for c in m.constants.values() if c.op == "OpConstant"
            and c.type.op == op and c.type.width == width and c.type.signed == signed]


@pytest.fixture(scope="module")
def spec(corpus: dict[str, bytes]) -> Module:
    return read(corpus["handmade spec"])


def test_header_and_module_settings(spec: Module) -> None:
    assert spec.header.version == (1, 2)
    assert spec.header.generator >> 16 == 7  # Khronos SPIR-V Tools Assembler
    assert spec.capabilities == ["Kernel", "Addresses", "Int64", "Int16", "Float16", "Float64",
                                 "LiteralSampler", "SubgroupDispatch", "Linkage"]
    assert (spec.addressing_model, spec.memory_model) == ("Physical64", "OpenCL")
    assert list(spec.ext_inst_imports.values()) == ["OpenCL.std"]


def test_entry_point_and_execution_modes(spec: Module) -> None:
    ep = spec.entry_point("main")
    assert ep.execution_model == "Kernel" and spec.kernel_names == ["main"]
    assert ep.function == _by_name(spec, "main")
    assert ep.interface == (_by_name(spec, "gid"),)
    assert ep.execution_modes == {"LocalSize": (8, 4, 2), "SubgroupSize": (16,),
                                  "ContractionOff": (), "SubgroupsPerWorkgroup": (4,),
                                  "VecTypeHint": (4,), "LocalSizeHint": (2, 2, 2)}


def test_scalar_constants(spec: Module) -> None:
    assert sorted(_values(spec, "uint")) == [0, 5]
    assert _values(spec, "int") == [-42]
    assert _values(spec, "short") == [-3]
    assert _values(spec, "long") == [-81985529216486896]
    assert _values(spec, "ulong") == [2**64 - 1]
    assert _values(spec, "half") == [1.5, -0.25]
    assert _values(spec, "float") == [float(np.float32(3.14159274)), float(np.float32(-1.5e-10))]
    assert _values(spec, "double") == [2.718281828459045, -1e300]
    bools = {c.op: c.value for c in spec.constants.values() if c.type.op == "Bool"}
    assert bools == {"OpConstantTrue": True, "OpConstantFalse": False, "OpSpecConstantTrue": True}


def test_composite_null_and_sampler_constants(spec: Module) -> None:
    by_op = {c.op: c for c in spec.constants.values()}
    comp = by_op["OpConstantComposite"]
    assert comp.type.op == "Vector" and comp.type.count == 2
    assert [spec.constants[i].value for i in comp.value] == _values(spec, "float")
    assert by_op["OpConstantNull"].value is None
    assert by_op["OpConstantSampler"].value == {
        "addressing": "ClampToEdge", "normalized": True, "filter": "Linear"}


def test_spec_constants(spec: Module) -> None:
    specs = {c.spec_id: c for c in spec.constants.values() if c.spec_id is not None}
    assert {k: (c.op, c.value) for k, c in specs.items()} == {
        7: ("OpSpecConstant", 4), 3: ("OpSpecConstantTrue", True),
        9: ("OpSpecConstant", 4294967296)}
    assert all(c.is_spec for c in specs.values())
    ops = sorted((c for c in spec.constants.values() if c.op == "OpSpecConstantOp"),
                 key=lambda c: c.id)
    uint_5 = next(c.id for c in spec.constants.values() if c.value == 5 and c.op == "OpConstant")
    uint_0 = next(c.id for c in spec.constants.values() if c.value == 0 and c.op == "OpConstant")
    assert ops[0].value == {"opcode": "OpIAdd", "operands": [specs[7].id, uint_5]}
    assert ops[1].value == {"opcode": "OpSelect", "operands": [specs[3].id, specs[7].id, uint_0]}


def test_types(spec: Module) -> None:
    arrays = sorted((t for t in spec.types.values() if t.op == "Array"), key=lambda t: t.id)
    assert [(repr(t.component), t.count) for t in arrays] == [("f32", 4), ("i32", 5)]
    pair = spec.types[_by_name(spec, "pair")]
    assert [repr(t) for t in pair.members] == ["i64", "f64"]
    assert spec.member_names == {(pair.id, 0): "first", (pair.id, 1): "second"}
    assert [d.name for d in spec.member_decorations[(pair.id, 0)]] == ["Volatile"]
    assert [d.name for d in spec.member_decorations[(pair.id, 1)]] == ["Restrict"]
    fn = spec.functions[_by_name(spec, "main")]
    assert [repr(t) for t in fn.type.params] == [
        "ptr<CrossWorkgroup, f32>", "ptr<CrossWorkgroup, f32>", "i64"]
    assert repr(fn.type.return_type) == "void"
    sampler = [t for t in spec.types.values() if t.op == "Sampler"]
    assert len(sampler) == 1


def test_decorations_variables_and_builtins(spec: Module) -> None:
    gid = _by_name(spec, "gid")
    assert spec.builtin_variables() == {gid: "GlobalInvocationId"}
    assert spec.has_decoration(gid, "Constant")
    assert {v.storage_class for v in spec.variables.values()} == {"Input", "Workgroup"}
    fn = spec.functions[_by_name(spec, "main")]
    for param in fn.params[:2]:  # OpGroupDecorate
        assert spec.has_decoration(param.result_id, "Restrict")
        assert spec.has_decoration(param.result_id, "Volatile")
    assert not spec.has_decoration(fn.params[2].result_id, "Restrict")


def test_functions_blocks_and_switch(spec: Module) -> None:
    fn = spec.functions[_by_name(spec, "main")]
    assert fn.name == "main" and not fn.is_declaration
    assert len(fn.params) == 3 and len(fn.blocks) == 4
    switch = fn.blocks[0].terminator
    assert switch.opname == "OpSwitch"
    assert [op.value[0] for op in switch.operands[2:]] == [
        (0xFFFFFFFE, 0xFFFFFFFF), (0, 1), (7, 0)]


def test_source_locations_from_oplines(spec: Module) -> None:
    fn = spec.functions[_by_name(spec, "main")]
    locs = {i.opname: i.location for i in fn.blocks[0].instructions}
    assert locs["OpLoad"] == SourceLocation("kernel.cl", 11, 7)  # the later OpLoad wins
    assert locs["OpCompositeExtract"] == SourceLocation("kernel.cl", 10, 3)
    assert locs["OpExtInst"] is None  # after OpNoLine
    assert fn.blocks[1].instructions[0].location is None  # a new block starts without a line
    assert fn.blocks[2].instructions[0].location == SourceLocation("kernel.cl", 20, 1)
    fma = next(i for i in fn.blocks[0].instructions if i.opname == "OpExtInst")
    assert fma.ext_opname == "fma"


def test_debug_line_forward_pointer_and_id_variants(corpus: dict[str, bytes]) -> None:
    m = read(corpus["handmade debug"])
    assert m.header.version == (1, 6)
    node = m.types[_by_name(m, "node")]
    ptr = node.members[1]
    assert ptr.op == "Pointer" and ptr.storage_class == "CrossWorkgroup" and ptr.pointee is node
    assert [d.name for d in m.member_decorations[(node.id, 1)]] == ["Volatile"]
    consts = {c.value: c.id for c in m.constants.values()}
    ep = m.entry_point("main")
    assert ep.execution_modes == {"LocalSizeId": (consts[8], consts[1], consts[1])}
    fn = m.functions[_by_name(m, "main")]
    assert m.decoration(fn.params[0].result_id, "AlignmentId") == (consts[16],)
    block = fn.blocks[0]
    locs = [(i.opname, i.location) for i in block.instructions]
    assert locs == [
        ("OpInBoundsPtrAccessChain", SourceLocation("dir/k.cl", 12, 8)),
        ("OpLoad", SourceLocation("dir/k.cl", 12, 8)),
        ("OpIAdd", SourceLocation("dir/k.cl", 14, 1)),
        ("OpSwitch", None),
    ]
    assert [op.value[0] for op in block.terminator.operands[2:]] == [
        (0, 0), (0xFFFFFFFF, 0xFFFFFFFF), (0, 1)]


def test_special_float_and_small_int_constants(corpus: dict[str, bytes]) -> None:
    m = read(corpus["handmade names"])
    assert m.addressing_model == "Physical32"
    halves = _values(m, "half")
    assert halves[0] == math.inf and halves[1] == 2.0**-24
    floats = _values(m, "float")
    assert math.isnan(floats[0]) and floats[1] == -math.inf and floats[2] == 2.0**-149
    assert floats[3] == 0 and math.copysign(1, floats[3]) == -1
    assert floats[4] == float(np.float32(1e30))
    assert _values(m, "uchar") == [255] and _values(m, "ushort") == [65535]
    assert [t.name for t in m.types.values() if t.op == "Opaque"] == ["struct.my thing"]
    assert sorted(m.builtin_variables().values()) == [
        "GlobalInvocationId", "LocalInvocationId", "WorkDim"]
    fn = m.functions[_by_name(m, "main")]
    assert fn.blocks[0].terminator.location == SourceLocation("names.cl", 3, 14)


def test_compiled_sub_group_kernels(corpus: dict[str, bytes]) -> None:
    m = read(corpus["subgroups -cl-std=CL2.0"])
    assert m.entry_point("k").execution_modes["SubgroupSize"] == (16,)
    assert {"SubgroupShuffleINTEL", "SubgroupBufferBlockIOINTEL"} <= set(m.capabilities)
    assert "SPV_INTEL_subgroups" in m.extensions
    ops = {i.opname for i in m.instructions}
    assert {"OpSubgroupShuffleINTEL", "OpSubgroupShuffleDownINTEL", "OpSubgroupShuffleUpINTEL",
            "OpSubgroupShuffleXorINTEL", "OpSubgroupBlockReadINTEL",
            "OpSubgroupBlockWriteINTEL"} <= ops
    assert "GlobalInvocationId" in m.builtin_variables().values()
    img = read(corpus["images -cl-std=CL2.0"])
    assert "SubgroupImageBlockIOINTEL" in img.capabilities
    assert {"OpSubgroupImageBlockReadINTEL", "OpSubgroupImageBlockWriteINTEL"} <= {
        i.opname for i in img.instructions}
    images = [t for t in img.types.values() if t.op == "Image"]
    assert {(t.image["dim"], t.image["access"]) for t in images} == {
        ("2D", "ReadOnly"), ("2D", "WriteOnly"), ("3D", "ReadOnly")}


def test_compiled_execution_modes_and_constants(corpus: dict[str, bytes]) -> None:
    m = read(corpus["two_kernels -cl-std=CL2.0"])
    assert m.kernel_names == ["first", "second"]
    first, second = m.entry_point("first"), m.entry_point("second")
    assert first.execution_modes["LocalSize"] == (16, 2, 1)
    assert first.execution_modes["VecTypeHint"] == (4 << 16 | 5,)  # float4: 4 components, float
    assert second.execution_modes["LocalSizeHint"] == (8, 8, 1)
    c = read(corpus["constants -cl-std=CL2.0"])
    ulongs = _values(c, "ulong")
    assert {2**64 - 1, 0x123456789ABCDEF0, 1 << 40} <= set(ulongs)
    assert {1.5, -2.25, 1e300, 3.141592653589793} <= set(_values(c, "double"))
    table = c.variables[_by_name(c, "table")]
    init = c.constants[table.initializer]
    assert [c.constants[i].value for i in init.value][:3] == [1.5, -2.25, 1e300]
    assert table.pointee.op == "Array" and table.pointee.count == 4
    s = read(corpus["switch -cl-std=CL2.0"])
    cases = [op.value[0] for i in s.instructions if i.opname == "OpSwitch"
             for op in i.operands[2:]]
    assert (0xFFFFFFF9,) in cases and (0, 1) in cases and (0xFFFFFFFE, 0xFFFFFFFF) in cases
