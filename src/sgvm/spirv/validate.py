"""Structural validation of a read Module before it is executed.

The reader guarantees a well-formed binary; this checks the rules of SPIR-V spec
s2.16 ("Validation Rules") and the per-instruction rules of s3.52 that the engines
rely on, so that a module that parses but is invalid is refused with one error,
:class:`~sgvm.errors.SpirvValidationError` (word offset and rule), instead of failing
somewhere inside execution. Rules (the ``rule`` of the error):

* ``id-defined``: every id operand names an instruction of the module.
* ``type``: types are well built (OpenCL vector sizes 2, 3, 4, 8, 16; integer widths
  8/16/32/64, float widths 16/32/64; arrays of at least one non-void element).
* ``constant``: constants and initialisers have the type they claim.
* ``entry-point``: entry points name defined functions returning void, and their
  interface lists variables; ``BuiltIn`` decorates variables.
* ``function``: a function's type, parameters and returns agree.
* ``operand-kind``: value operands are values (not types, labels or functions);
  branch targets and ``OpPhi`` parents are blocks of the same function; calls name functions.
* ``dominance``: a value is used only where its definition dominates (s2.16.1;
  ``OpPhi`` operands at the end of their parent block).
* ``operand-type``: operands have the types the instruction requires (``validate_ops``).
"""

from __future__ import annotations

import weakref

from ..errors import SpirvValidationError
from .module import Block, Function, Instruction, Module, Type
from .validate_ops import check_instruction, describe, same_type

_VALID: weakref.WeakSet[Module] = weakref.WeakSet()

_VECTOR_SIZES = (2, 3, 4, 8, 16)
# Operand positions that are block labels (besides OpPhi parents and OpSwitch targets).
_LABEL_OPERANDS = {"OpBranch": (0,), "OpBranchConditional": (1, 2), "OpLoopMerge": (0, 1),
                   "OpSelectionMerge": (0,), "OpSwitch": (1,)}
# Instructions inside functions whose id operands are not (all) values.
_NOT_VALUES = frozenset(("OpLine", "OpNoLine", "OpCooperativeMatrixLengthKHR", "OpFunctionCall",
                         "OpPhi", "OpSwitch", "OpExtInst", "OpSizeOf"))
_VALUE_SETS = ("OpenCL.std",)  # extended sets whose operands are all values


def fail(inst: Instruction | None, rule: str, message: str) -> SpirvValidationError:
    name = f"{inst.ext_opname or inst.opname}: " if inst is not None else ""
    return SpirvValidationError(name + message, inst.offset if inst is not None else None, rule)


def validate(module: Module) -> None:
    """Raise SpirvValidationError if ``module`` breaks a rule (see the module docstring).
    A module that passed is remembered and not checked again."""
    if module in _VALID:
        return
    _Validator(module).run()
    _VALID.add(module)


class _Validator:
    def __init__(self, module: Module):
        self.m = module

    def run(self) -> None:
        m = self.m
        for inst in m.instructions:
            for ref in inst.ids():
                if ref not in m.defs:
                    raise fail(inst, "id-defined", f"%{ref} is not defined in the module")
        for t in m.types.values():
            self.type(t)
        for c in m.constants.values():
            self.constant(c.id)
        for var in m.variables.values():
            self.variable(var.id)
        self.entry_points()
        for fn in m.functions.values():
            self.function(fn)

    # -- module scope --------------------------------------------------------------------
    def type(self, t: Type) -> None:
        inst = self.m.defs[t.id]
        if t.op == "Vector" and (t.count not in _VECTOR_SIZES or t.component is None or not t.component.is_scalar):
            raise fail(inst, "type", f"a vector has 2, 3, 4, 8 or 16 scalar components, not {t.count} of "
                       f"{describe(t.component)}")
        if t.op == "Int" and t.width not in (8, 16, 32, 64):
            raise fail(inst, "type", f"integer width {t.width} (OpenCL: 8, 16, 32 or 64)")
        if t.op == "Float" and t.width not in (16, 32, 64):
            raise fail(inst, "type", f"float width {t.width} (OpenCL: 16, 32 or 64)")
        if t.op == "Array" and (t.count < 1 or t.component is None or t.component.op in ("Void", "Function")):
            raise fail(inst, "type", "an array needs a length of at least 1 and a non-void element type")
        if t.op == "Struct" and any(mt is None or mt.op in ("Void", "Function") for mt in t.members):
            raise fail(inst, "type", "struct members must be data types")
        if t.op == "Pointer" and t.pointee is not None and t.pointee.op == "Function":
            raise fail(inst, "type", "pointer to a function type")

    def constant(self, cid: int) -> None:
        m = self.m
        inst, c = m.defs[cid], m.constants[cid]
        t = c.type
        if inst.opname in ("OpConstant", "OpSpecConstant") and t.op not in ("Int", "Float"):
            raise fail(inst, "constant", f"a numeric constant of type {describe(t)}")
        if inst.opname in ("OpConstantTrue", "OpConstantFalse", "OpSpecConstantTrue", "OpSpecConstantFalse") \
                and t.op != "Bool":
            raise fail(inst, "constant", f"a boolean constant of type {describe(t)}")
        if inst.opname in ("OpConstantComposite", "OpSpecConstantComposite"):
            parts = [o.value for o in inst.operands]
            for p in parts:
                if p not in m.constants and p not in m.undefs:
                    raise fail(inst, "constant", f"constituent %{p} is not a constant")
            want = _constituent_types(t)
            got = [m.types.get(m.value_types.get(p, -1)) for p in parts]
            if want is None or len(want) != len(got) or not all(
                    _fits(a, b, m.defs[p].opname) for a, b, p in zip(want, got, parts, strict=True)):
                raise fail(inst, "constant", f"constituents {describe(got)} do not make a {describe(t)}")

    def variable(self, vid: int) -> None:
        m = self.m
        inst, var = m.defs[vid], m.variables[vid]
        if var.type.op != "Pointer" or var.type.storage_class != var.storage_class:
            raise fail(inst, "type", f"result type {describe(var.type)} is not a {var.storage_class} pointer")
        if var.storage_class == "Function":
            raise fail(inst, "type", "a module-scope variable in the Function storage class")
        if var.initializer is not None:
            init = var.initializer
            if init not in m.constants and init not in m.variables and init not in m.undefs:
                raise fail(inst, "constant", f"initializer %{init} is not a constant")
            if not same_type(m.types.get(m.value_types.get(init, -1)), var.pointee):
                raise fail(inst, "constant", f"initializer %{init} is not a {describe(var.pointee)}")

    def entry_points(self) -> None:
        m = self.m
        for inst in m.instructions:
            if inst.opname != "OpEntryPoint":
                continue
            fid = inst.operands[1].value
            fn = m.functions.get(fid)
            if fn is None or fn.is_declaration:
                raise fail(inst, "entry-point", f"%{fid} is not a function defined in the module")
            if fn.result_type.op != "Void":
                raise fail(inst, "entry-point", f"kernel %{fid} returns {describe(fn.result_type)}, not void")
            for ref in inst.operands[3:]:
                if ref.value not in m.variables:
                    raise fail(inst, "entry-point", f"interface %{ref.value} is not a module-scope variable")
        size_t = 32 if m.addressing_model == "Physical32" else 64
        for target, decos in m.decorations.items():
            for d in decos:
                if d.name == "BuiltIn":
                    self.builtin(target, d.args[0], size_t)

    def builtin(self, target: int, name: str, size_t: int) -> None:
        """A BuiltIn variable has the type the OpenCL SPIR-V environment gives the built-in (s2.9)."""
        m = self.m
        var = m.variables.get(target)
        if var is None:
            raise fail(m.defs[target], "entry-point", f"BuiltIn {name} decorates something that is not a variable")
        count, width = _BUILTINS.get(name, (None, None))
        t = var.pointee
        if count is None or var.storage_class != "Input":
            return  # built-ins the engine does not read from Input variables are refused at run time
        comp = t.component if t.op == "Vector" else t
        ok = (t.count if t.op == "Vector" else 1) == count and comp is not None and comp.op == "Int" \
            and comp.width == (width or size_t)
        if not ok:
            want = f"i{width or size_t}" + (f"x{count}" if count > 1 else "")
            raise fail(m.defs[target], "entry-point", f"BuiltIn {name} variable holds {describe(t)}, not {want}")

    # -- functions -----------------------------------------------------------------------
    def function(self, fn: Function) -> None:
        m = self.m
        head = m.defs[fn.id]
        if fn.type.op != "Function" or not same_type(fn.type.return_type, fn.result_type):
            raise fail(head, "function", "the result type is not the function type's return type")
        if len(fn.params) != len(fn.type.params):
            raise fail(head, "function", f"{len(fn.params)} parameters for a function type with "
                       f"{len(fn.type.params)}")
        for p, t in zip(fn.params, fn.type.params, strict=True):
            if not same_type(m.types[p.result_type], t):
                raise fail(p, "function", f"parameter type {describe(m.types[p.result_type])} is not {describe(t)}")
        if fn.is_declaration:
            return
        labels = {b.label: b for b in fn.blocks}
        local = {p.result_id: None for p in fn.params}  # id → block defining it (None: the entry)
        for b in fn.blocks:
            for inst in b.instructions:
                if inst.result_id is not None:
                    local[inst.result_id] = b.label
        dom = _dominators(fn, labels)
        for b in fn.blocks:
            seen: set[int] = set()
            for inst in b.instructions:
                self.operands(fn, b, inst, labels, local, dom, seen)
                check_instruction(m, fn, inst)
                if inst.result_id is not None:
                    seen.add(inst.result_id)

    def operands(self, fn: Function, b: Block, inst: Instruction, labels: dict[int, Block],
                 local: dict[int, int | None], dom: dict[int, set[int]], seen: set[int]) -> None:
        m = self.m
        op = inst.opname
        for pos in _LABEL_OPERANDS.get(op, ()):
            if pos < len(inst.operands) and inst.operands[pos].value not in labels:
                raise fail(inst, "operand-kind", f"%{inst.operands[pos].value} is not a block of this function")
        if op == "OpSwitch":
            for o in inst.operands[2:]:
                if o.value[1] not in labels:
                    raise fail(inst, "operand-kind", f"%{o.value[1]} is not a block of this function")
            values = [inst.operands[0].value]
        elif op == "OpPhi":
            for o in inst.operands:
                value, parent = o.value
                if parent not in labels:
                    raise fail(inst, "operand-kind", f"parent %{parent} is not a block of this function")
                self.value(inst, value)
                if value in local and parent in dom and local[value] is not None \
                        and local[value] not in dom[parent]:
                    raise fail(inst, "dominance", f"%{value} does not dominate the end of parent %{parent}")
            return
        elif op == "OpFunctionCall":
            callee = inst.operands[0].value
            if callee not in m.functions:
                raise fail(inst, "operand-kind", f"%{callee} is not a function")
            values = [o.value for o in inst.operands[1:]]
        elif op == "OpExtInst":
            if m.ext_inst_imports.get(inst.operands[0].value) not in _VALUE_SETS:
                return
            values = [o.value for o in inst.operands[2:] if o.kind == "IdRef"]
        elif op in _NOT_VALUES:
            return
        else:
            skip = set(_LABEL_OPERANDS.get(op, ()))
            values = [o.value for i, o in enumerate(inst.operands)
                      if i not in skip and o.kind in ("IdRef", "IdScope", "IdMemorySemantics")]
        for v in values:
            self.value(inst, v)
            if v in local:
                where = local[v]
                if where == b.label and v not in seen or where is not None and where != b.label \
                        and where not in dom.get(b.label, ()):
                    raise fail(inst, "dominance", f"%{v} is used where its definition does not dominate")
            elif not (v in m.constants or v in m.variables or v in m.undefs
                      or m.defs[v].opname in _GLOBAL_VALUES):
                raise fail(inst, "dominance", f"%{v} is defined in another function")

    def value(self, inst: Instruction, vid: int) -> None:
        if vid not in self.m.value_types or self.m.defs[vid].opname in ("OpFunction", "OpLabel"):
            raise fail(inst, "operand-kind", f"%{vid} is not a value ({self.m.defs[vid].opname})")


# BuiltIn → (components, integer width; None: size_t), OpenCL SPIR-V environment s2.9.
_BUILTINS: dict[str, tuple[int, int | None]] = {
    **{n: (3, None) for n in ("GlobalInvocationId", "LocalInvocationId", "WorkgroupId", "NumWorkgroups",
                              "WorkgroupSize", "GlobalSize", "EnqueuedWorkgroupSize", "GlobalOffset")},
    "GlobalLinearId": (1, None), "LocalInvocationIndex": (1, None), "WorkDim": (1, 32),
    **{n: (1, 32) for n in ("SubgroupSize", "SubgroupMaxSize", "NumSubgroups", "NumEnqueuedSubgroups",
                            "SubgroupId", "SubgroupLocalInvocationId")},
    **{n: (4, 32) for n in ("SubgroupEqMask", "SubgroupGeMask", "SubgroupGtMask", "SubgroupLeMask",
                            "SubgroupLtMask")},
}

_GLOBAL_VALUES = frozenset((
    "OpConstant", "OpConstantTrue", "OpConstantFalse", "OpConstantComposite", "OpConstantNull",
    "OpConstantSampler", "OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse",
    "OpSpecConstantComposite", "OpSpecConstantOp", "OpString", "OpConstantFunctionPointerINTEL",
    "OpConstantCompositeContinuedINTEL",
))  # module-scope variables and OpUndef: Module.variables / Module.undefs


def _fits(want: Type | None, got: Type | None, op: str) -> bool:
    """A constituent of a constant composite: its type, except that address constants
    (pointers to other pointee types, ``OpSpecConstantOp`` casts, addresses as integers:
    what clang emits for pointers in initialised aggregates) only need to be pointers or integers."""
    if same_type(want, got):
        return True
    address = want is not None and want.op == "Pointer" or op == "OpSpecConstantOp"
    return address and got is not None and got.op in ("Pointer", "Int") and want is not None \
        and want.op in ("Pointer", "Int")


def _constituent_types(t: Type) -> list[Type | None] | None:
    if t.op == "Vector":
        return [t.component] * t.count
    if t.op == "Array":
        return [t.component] * t.count if t.count <= 1 << 20 else None
    if t.op == "Struct":
        return list(t.members)
    return None


def _successors(b: Block) -> list[int]:
    term = b.terminator
    if term.opname == "OpBranch":
        return [term.operands[0].value]
    if term.opname == "OpBranchConditional":
        return [term.operands[1].value, term.operands[2].value]
    if term.opname == "OpSwitch":
        return [term.operands[1].value, *(o.value[1] for o in term.operands[2:])]
    return []


def _dominators(fn: Function, labels: dict[int, Block]) -> dict[int, set[int]]:
    """Block label → labels of the blocks that dominate it (itself included); unreachable
    blocks are dominated by every block (the iterative data-flow algorithm)."""
    order = [b.label for b in fn.blocks]
    preds: dict[int, list[int]] = {lbl: [] for lbl in order}
    for b in fn.blocks:
        for s in _successors(b):
            if s in preds:
                preds[s].append(b.label)
    everything = set(order)
    dom = {lbl: set(everything) for lbl in order}
    dom[order[0]] = {order[0]}
    changed = True
    while changed:
        changed = False
        for lbl in order[1:]:
            ps = [dom[p] for p in preds[lbl]]
            new = set.intersection(*ps) | {lbl} if ps else set(everything)
            if new != dom[lbl]:
                dom[lbl], changed = new, True
    return dom
