"""Statements of the generated kernels that call the khr sub-group built-ins
(cl_khr_subgroup_extended_types, _non_uniform_vote, _ballot, _non_uniform_arithmetic,
_shuffle, _shuffle_relative, _clustered_reduce, cl_khr_subgroup_rotate), each only where
its result is defined:

* "These functions need not be encountered by all work items in a sub-group": the vote,
  ballot, non-uniform arithmetic and clustered functions are also placed in divergent
  code, where they combine the *active* work-items — but only where that set is pinned
  down by the code: inside if/else on any condition, not inside a loop whose trip count
  or break differs between the work-items of a sub-group (which of them run an
  iteration together is not said), the generator's ``tangled`` scopes;
* shuffles, rotates and broadcasts read other work-items' values: "The return value is
  undefined if the work item with sub-group local ID equal to *index* is inactive or if
  *index* is greater than or equal to the size of the sub-group", so they are only placed
  where the whole sub-group runs them, with indices in range (up: *delta* at most this
  work-item's id, down: id + *delta* below the size, xor and rotate only in launches
  without partial sub-groups);
* the cluster size "must be an integer constant expression, a power-of-two" and not
  above the maximum sub-group size; the rotate *delta* is sub-group uniform
  ("required to be dynamically-uniform"), the non-uniform broadcast index too, the
  inverse-ballot bitfield is the same for all active work-items, find_lsb/msb get a
  bitfield with this work-item's own bit set;
* products only of values whose product cannot overflow a signed type or lose float
  bits in any order (-1, 0, 1; any value for unsigned types, which wrap), sums bounded as
  for the core collectives; vote and logical results (only "non-zero") are normalised.
"""

from __future__ import annotations

from .uniformity import LANE, SG, WG

SCALARS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
           "float", "double", "half")
INTEGERS = SCALARS[:8]
BROADCAST_WIDTHS = (1, 2, 3, 4, 8, 16)
KINDS = ("reduce", "scan_inclusive", "scan_exclusive")
ARITH = ("add", "mul", "min", "max")
BITWISE = ("and", "or", "xor")
LOGICAL = ("logical_and", "logical_or", "logical_xor")
SMALL = ("char", "uchar", "short", "ushort")  # cl_khr_subgroup_extended_types


class KhrStatements:
    """Mixed into sgvm.fuzz.generator.Generator (uses its rng, pick, typed, fold, ...)."""

    def khr_table(self) -> list[tuple[float, object]]:
        table: list[tuple[float, object]] = []
        if self.tangled:
            table += [(0.7, self.stmt_khr_vote), (0.8, self.stmt_khr_ballot),
                      (1.2, self.stmt_khr_non_uniform_arithmetic), (0.8, self.stmt_khr_clustered)]
        if self.ctx >= SG:
            table += [(1.0, self.stmt_khr_shuffle), (0.8, self.stmt_khr_broadcast),
                      (0.6, self.stmt_khr_extended)]
            if not self.launch.partial:
                table.append((0.6, self.stmt_khr_rotate))
        elif self.tangled:
            table.append((0.4, self.stmt_khr_broadcast_first))
        return table

    # --- operands ------------------------------------------------------------------------
    def khr_operand(self, t: str, op: str, a: str) -> str:
        """A value of type ``t`` for combining with ``op`` in any order without overflow,
        undefined behaviour or (for floats) rounding."""
        if op == "mul" and not t.startswith("u"):
            if t in ("float", "double", "half"):
                return f"(({t})(float)((int)({a} % 3u) - 1))"
            return f"(({t})((int)({a} % 3u) - 1))"
        if op in LOGICAL:
            return f"(int)(({a} & {self.rng.choice((1, 3, 7))}u) != 0u)"
        return self.typed(t, a, op == "add")

    def khr_fold(self, t: str, call: str, level: int) -> None:
        if t == "int01":
            self.declare(f"({call} != 0) ? 1u : 0u", level)
        else:
            self.declare(self.fold(t, 1, call), level)

    def khr_op_and_type(self) -> tuple[str, str]:
        op = self.rng.choice(ARITH + BITWISE + LOGICAL)
        if op in LOGICAL:
            return op, "int01"
        return op, self.rng.choice(INTEGERS if op in BITWISE else SCALARS)

    # --- statements ----------------------------------------------------------------------
    def stmt_khr_vote(self) -> None:
        r = self.rng
        a = self.pick()
        kinds = ("all", "any", "all_equal") + (() if "sub_group_elect" in self.omit else ("elect",))
        kind = r.choice(kinds)
        if kind == "elect":
            self.khr_fold("int01", "sub_group_elect()", LANE)
        elif kind == "all_equal":
            t = r.choice(SCALARS)
            x = self.typed(t, f"({a} & {r.choice((1, 3, 0xFFFFFFFF))}u)", False)
            self.khr_fold("int01", f"sub_group_non_uniform_all_equal({x})", SG)
        else:
            pred = f"(int)(({a} & {r.choice((1, 3, 255))}u) != 0u)"
            self.khr_fold("int01", f"sub_group_non_uniform_{kind}({pred})", SG)

    def ballot_value(self) -> tuple[str, int]:
        """A bitfield the same for all active work-items: a ballot, or one built from a
        sub-group-uniform value."""
        if self.rng.random() < 0.7:
            a = self.pick()
            return f"sub_group_ballot((int)(({a} & {self.rng.choice((1, 3, 7))}u) != 0u))", SG
        u = self.pick(SG)
        return (f"(uint4)({u}, {u} ^ 0x55555555u, ~{u}, {u} * 3u)", SG)

    def stmt_khr_ballot(self) -> None:
        r = self.rng
        kind = r.choice(("ballot", "inverse", "extract", "count", "scan", "find", "mask"))
        value, _ = self.ballot_value()
        if kind == "ballot":
            self.declare(self.fold("uint", 4, value), SG)
        elif kind == "inverse":
            self.khr_fold("int01", f"sub_group_inverse_ballot({value})", LANE)
        elif kind == "extract":
            c = self.pick()
            self.khr_fold("int01", f"sub_group_ballot_bit_extract({value}, "
                          f"{c} % get_sub_group_size())", LANE)
        elif kind == "count":
            self.declare(f"sub_group_ballot_bit_count({value})", SG)
        elif kind == "scan":
            fn = r.choice(("inclusive", "exclusive"))
            self.declare(f"sub_group_ballot_{fn}_scan({value})", LANE)
        elif kind == "find":
            fn = r.choice(("lsb", "msb"))
            self.declare(f"sub_group_ballot_find_{fn}({value} | get_sub_group_eq_mask())", LANE)
        else:
            fn = r.choice(("eq", "ge", "gt", "le", "lt"))
            self.declare(self.fold("uint", 4, f"get_sub_group_{fn}_mask()"), LANE)

    def stmt_khr_non_uniform_arithmetic(self) -> None:
        op, t = self.khr_op_and_type()
        kinds = KINDS
        if op == "logical_xor" and "sub_group_non_uniform_scan_logical_xor" in self.omit:
            kinds = ("reduce",)
        kind = self.rng.choice(kinds)
        x = self.khr_operand(t, op, self.pick())
        self.khr_fold(t, f"sub_group_non_uniform_{kind}_{op}({x})",
                      SG if kind == "reduce" else LANE)

    def stmt_khr_clustered(self) -> None:
        op, t = self.khr_op_and_type()
        sizes = [c for c in (1, 2, 4, 8, 16, 32) if c <= self.launch.sub_group_size]
        x = self.khr_operand(t, op, self.pick())
        self.khr_fold(t, f"sub_group_clustered_reduce_{op}({x}, {self.rng.choice(sizes)}u)",
                      LANE)

    def stmt_khr_shuffle(self) -> None:
        r = self.rng
        kinds = ["shuffle", "up", "down"] + ([] if self.launch.partial else ["xor"])
        kind = r.choice(kinds)
        t = r.choice(SCALARS)
        if kind in ("shuffle", "xor"):
            t = self.shuffled_type(t)
        x, c = self.typed(t, self.pick(), False), self.pick()
        if kind == "shuffle":
            call = f"sub_group_shuffle({x}, {c} % get_sub_group_size())"
        elif kind == "xor":
            call = f"sub_group_shuffle_xor({x}, {c} & {self.launch.sub_group_size - 1}u)"
        elif kind == "up":
            call = f"sub_group_shuffle_up({x}, {c} % (get_sub_group_local_id() + 1u))"
        else:
            call = (f"sub_group_shuffle_down({x}, "
                    f"{c} % (get_sub_group_size() - get_sub_group_local_id()))")
        self.declare(self.fold(t, 1, call), LANE)

    def stmt_khr_rotate(self) -> None:
        r = self.rng
        t = r.choice(SCALARS)
        x, d = self.typed(t, self.pick(), False), self.pick(SG)
        delta = f"(int)({d} & 63u)"
        if r.random() < 0.5:
            call = f"sub_group_rotate({x}, {delta})"
        else:
            sizes = [c for c in (1, 2, 4, 8, 16, 32) if c <= self.launch.sub_group_size]
            call = f"sub_group_clustered_rotate({x}, {delta}, {r.choice(sizes)}u)"
        self.declare(self.fold(t, 1, call), LANE)

    def broadcast_width(self, n: int) -> int:
        """``n``, or 1 (a scalar broadcast) outside work-group-uniform control flow where
        ``broadcast:vector:sub-group-uniform`` is omitted (sgvm.oracle.differences:
        vector-broadcast-crash). Draws nothing from the random stream."""
        if self.ctx < WG and "broadcast:vector:sub-group-uniform" in self.omit:
            return 1
        return n

    def stmt_khr_broadcast(self) -> None:
        """sub_group_non_uniform_broadcast (scalars and vectors) with a sub-group-uniform
        index in range, or sub_group_broadcast_first."""
        r = self.rng
        if r.random() < 0.25:
            self.stmt_khr_broadcast_first()
            return
        t, n = r.choice(SCALARS), self.broadcast_width(r.choice(BROADCAST_WIDTHS))
        x, idx = self.vector(t, n, self.pick(), False), self.pick(SG)
        self.declare(self.fold(t, n, f"sub_group_non_uniform_broadcast({x}, "
                                     f"{idx} % get_sub_group_size())"), SG)

    def stmt_khr_broadcast_first(self) -> None:
        t = self.rng.choice(SCALARS)
        x = self.typed(t, self.pick(), False)
        self.declare(self.fold(t, 1, f"sub_group_broadcast_first({x})"), SG)

    def stmt_khr_extended(self) -> None:
        """cl_khr_subgroup_extended_types: the core sub-group collectives on 8- and 16-bit
        scalars (without the intel_ prefix) and sub_group_broadcast on vectors."""
        r = self.rng
        a = self.pick()
        if r.random() < 0.4:
            t, n = r.choice(SCALARS), self.broadcast_width(r.choice(BROADCAST_WIDTHS[1:]))
            idx = self.pick(SG)
            call = (f"sub_group_broadcast({self.vector(t, n, a, False)}, "
                    f"{idx} % get_sub_group_size())")
            self.declare(self.fold(t, n, call), SG)
            return
        t, op, kind = r.choice(SMALL), r.choice(("add", "min", "max")), r.choice(KINDS)
        x = f"sub_group_{kind}_{op}({self.typed(t, a, op == 'add')})"
        self.declare(self.fold(t, 1, x), SG if kind == "reduce" else LANE)
