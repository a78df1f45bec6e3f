"""A seeded generator of well-defined OpenCL C kernels that exercise sub-groups and
work-groups (docs/fuzz.md).

Well-definedness is kept by construction:

* every value the generator tracks carries its *uniformity*: the same for the whole
  work-group (``WG``), for the sub-group (``SG``), or per work-item (``LANE``); control
  flow entered on a condition of a lower level lowers the context;
* "These built-in functions must be encountered by all work items in a subgroup"
  (cl_intel_subgroups: collectives, block IO) and "must be encountered by all
  work-items in a work-group" (OpenCL C 2.0 work-group functions, barriers): those
  calls are only placed where the context is at least ``SG`` / ``WG``; shuffles too
  (their sources must have encountered them), with in-range computed indices;
* block IO pointers are ``SG``-uniform and aligned ("p must be aligned to a 32-bit
  (4-byte) boundary" for reads, 16-byte for writes); every sub-group writes only its
  own region;
* integer arithmetic is done in ``uint`` (wrapping is defined for unsigned types),
  shifts are masked, divisors are made odd; signed and floating-point collective
  operands are bounded so no sum overflows and every float sum is exact whatever
  the reduction order; ``sub_group_all``/``any`` results (only "non-zero") are
  normalised to 0/1.

Each statement sits on its own line, so the reducer (reduce.py) can delete lines.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .khr import KhrStatements
from .uniformity import LANE, SG, WG

NOUT = 16  # output slots per work-item
NIN = 4096  # uints in the input buffer
REGION = 512  # uints of one block write's region (2 KiB: ulong8 × 32 lanes)
# Each block-write statement has its own region per sub-group: two writes of different
# element types to one region would have different work-items write the same bytes,
# unordered without a sub_group_barrier (a data race).
BLOCK_WRITES = 4
LMAX = 128  # largest work-group size; the local array's length
MAX_DEPTH = 3
INT_TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
FLOAT_TYPES = ("float", "double", "half")
# OpenCL C 2.0 s6.13.15 and cl_khr_subgroups: "gentype is int, uint, long, ulong, float"
# (+ half, double with their extensions); the char/short forms are cl_intel_subgroups_char
# and _short, under the intel_ prefix.
COLLECTIVE_TYPES = ("int", "uint", "long", "ulong", "float", "double", "half")
INTEL_SMALL_TYPES = ("char", "uchar", "short", "ushort")
# cl_intel_subgroups shuffles: vectors of 1/2/4/8/16 for 32-bit and smaller types,
# scalars for long, ulong, half, double (sgvm_intel_subgroups.h).
SHUFFLE_VECTOR_TYPES = ("float", "int", "uint", "char", "uchar", "short", "ushort")
SHUFFLE_SCALAR_TYPES = ("long", "ulong", "half", "double")
WIDTHS = (1, 2, 4, 8, 16)
WIDER = {"short": "int", "ushort": "uint", "half": "float"}  # Generator.shuffled_type
# Block IO suffix → element type and widths (cl_intel_subgroups, _char, _short, _long).
BLOCK_TYPES = {"": ("uint", (1, 2, 4, 8)), "_ui": ("uint", (1, 2, 4, 8)),
               "_uc": ("uchar", (1, 2, 4, 8, 16)), "_us": ("ushort", (1, 2, 4, 8, 16)),
               "_ul": ("ulong", (1, 2, 4, 8))}
ELEMENT_BYTES = {"uint": 4, "uchar": 1, "ushort": 2, "ulong": 8}
OPS = ("add", "min", "max")
SG_KINDS = ("reduce", "scan_inclusive", "scan_exclusive")


@dataclass
class Launch:
    """The NDRange of one generated kernel (1-D) and its buffer sizes."""

    sub_group_size: int
    local_size: int
    groups: int

    @property
    def global_size(self) -> int:
        return self.local_size * self.groups

    @property
    def sub_groups(self) -> int:
        return self.groups * -(-self.local_size // self.sub_group_size)

    @property
    def partial(self) -> bool:
        return self.local_size % self.sub_group_size != 0


@dataclass
class Kernel:
    """A generated kernel: its name, the lines of its body and its launch."""

    name: str
    seed: int
    launch: Launch
    body: list[str]
    uses_fp16: bool = False
    uses_fp64: bool = False

    def source(self, body: list[str] | None = None) -> str:
        lines = PROLOGUE + (self.body if body is None else body)
        s = self.launch.sub_group_size
        head = (f"__attribute__((intel_reqd_sub_group_size({s})))\n"
                f"kernel void {self.name}(global const uint *in, global uint *out, "
                f"global uint *blk) {{\n")
        return head + "".join(f"  {line}\n" for line in lines) + "}\n"


# The start of every kernel, never reduced: local memory is written before anything can
# read it (a reduced kernel must stay as well-defined as the generated one).
PROLOGUE = [
    f"local uint lm[{LMAX}];",
    f"const uint o = (uint)get_global_id(0) * {NOUT}u;",
    f"const uint sgr = ((uint)get_group_id(0) * get_num_sub_groups() + get_sub_group_id()) * "
    f"{REGION * BLOCK_WRITES}u;",
    "uint acc0 = 0u, acc1 = 0u;",
    "lm[get_local_id(0)] = 0u;",
    "barrier(CLK_LOCAL_MEM_FENCE);",
]

PRELUDE = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
static inline uint mix(uint h, uint x) { return (h ^ x) * 16777619u + 0x9e3779b9u; }
"""


def program_source(kernels: list[Kernel]) -> str:
    """One program holding several generated kernels (one build for all)."""
    return PRELUDE + "\n".join(k.source() for k in kernels)


@dataclass
class _Scope:
    ctx: int
    names: dict[str, int] = field(default_factory=dict)
    # False inside a loop whose trip count or break differs between the work-items of a
    # sub-group: which of them run an iteration together is not said (khr.py)
    tangled: bool = True


class Generator(KhrStatements):
    """Builds one kernel body from a ``random.Random``; ``omit`` names built-ins not to
    call (``khr``: none of the khr sub-group extensions' built-ins)."""

    def __init__(self, rng: random.Random, launch: Launch, size_hint: int = 28,
                 omit: frozenset[str] = frozenset()) -> None:
        self.rng = rng
        self.omit = omit
        self.launch = launch
        self.lines: list[str] = []
        self.scopes: list[_Scope] = [_Scope(WG)]
        self.counter = 0
        self.slot = 0
        self.budget = size_hint
        self.fp16 = self.fp64 = False
        self.block_writes = 0

    # --- variables and scopes ---------------------------------------------------------
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    @property
    def ctx(self) -> int:
        return self.scopes[-1].ctx

    @property
    def tangled(self) -> bool:
        return self.scopes[-1].tangled

    def visible(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for scope in self.scopes:
            out.update(scope.names)
        return out

    def pick(self, at_least: int = LANE) -> str:
        names = [n for n, lv in self.visible().items() if lv >= at_least]
        return self.rng.choice(names)

    def declare(self, expr: str, level: int) -> str:
        name = self.fresh()
        self.emit(f"uint {name} = {expr};")
        self.scopes[-1].names[name] = min(level, self.ctx)
        return name

    def emit(self, line: str) -> None:
        self.lines.append("  " * (len(self.scopes) - 1) + line)

    # --- expressions over uint ---------------------------------------------------------
    def arith(self) -> tuple[str, int]:
        r = self.rng
        a, b = self.pick(), self.pick()
        vis = self.visible()
        level = min(vis[a], vis[b])
        k = f"{r.choice((1, 3, 7, 0x55, 0x9E37, 0xFFFF, 0x80000000, r.getrandbits(32)))}u"
        op = r.randrange(14)
        # Shift amounts below 32 by construction: the checker reads through a `& 31` (clang
        # writes one for every shift) and would warn about a wider amount.
        amount = f"(({b} & 15u) + ({b} >> 28))"
        expr = [
            f"{a} + {b}", f"{a} - {b}", f"{a} * {b}", f"{a} ^ {k}", f"{a} & ({b} | {k})",
            f"{a} << {amount}", f"{a} >> {amount}", f"{a} / ({b} | 1u)",
            f"{a} % ({b} | 1u)", f"rotate({a}, {amount})", f"max({a}, {b})",
            f"({a} > {b}) ? {a} - {b} : {b} - {a}", f"mul_hi({a}, {k})",
            f"popcount({a}) + clz({b})",
        ][op]
        if op in (3, 12):
            level = vis[a]
        return expr, level

    def ids(self) -> tuple[str, int]:
        return self.rng.choice([
            ("get_sub_group_local_id()", LANE), ("(uint)get_local_id(0)", LANE),
            ("(uint)get_global_id(0)", LANE), ("get_sub_group_id()", SG),
            ("get_sub_group_size()", SG), ("(uint)get_group_id(0)", WG),
            ("get_num_sub_groups()", WG), ("get_max_sub_group_size()", WG),
            ("(uint)get_local_size(0)", WG)])

    def load(self) -> tuple[str, int]:
        a = self.pick()
        return f"in[{a} & {NIN - 1}u]", self.visible()[a]

    # --- typed operands and folding back to uint ------------------------------------
    def typed(self, t: str, a: str, bounded: bool) -> str:
        """A value of type ``t`` from uint ``a``; ``bounded`` keeps sums from overflowing
        (and float sums exact)."""
        self.fp16 |= t == "half"
        self.fp64 |= t == "double"
        if t in ("uint", "uchar", "ushort"):
            return f"({t}){a}" if t != "uint" else a
        if t == "ulong":
            return f"((ulong){a} * 0x9E3779B97F4A7C15UL)"
        if t == "float":
            return f"((float)({a} & 63u) - 32.0f)"
        if t == "double":
            return f"((double)({a} & 63u) - 32.0)"
        if t == "half":
            return f"((half)(float)({a} & 15u) - (half)8.0f)"
        if bounded:
            return {"char": f"(char)((int)({a} & 3u) - 2)",
                    "short": f"(short)((int)({a} & 511u) - 256)",
                    "int": f"((int)({a} & 0xFFFFFu) - 0x80000)",
                    "long": f"((long)({a} & 0xFFFFFFFu) - 0x8000000L)"}[t]
        return {"char": f"as_char((uchar){a})", "short": f"as_short((ushort){a})",
                "int": f"as_int({a})", "long": f"as_long((ulong){a} * 0x9E3779B97F4A7C15UL)"}[t]

    def vector(self, t: str, n: int, a: str, bounded: bool) -> str:
        if n == 1:
            return self.typed(t, a, bounded)
        parts = ", ".join(self.typed(t, f"({a} ^ {k * 0x2F1 + k}u)", bounded) for k in range(n))
        return f"({t}{n})({parts})"

    @staticmethod
    def scalar_bits(t: str, x: str) -> str:
        if t == "float":
            return f"as_uint({x})"
        if t == "half":
            return f"(uint)as_ushort({x})"
        if t == "double":
            return f"(uint)(as_ulong({x}) ^ (as_ulong({x}) >> 32))"
        if t in ("long", "ulong"):
            return f"(uint)((ulong){x} ^ ((ulong){x} >> 32))"
        return f"(uint){x}"

    def fold(self, t: str, n: int, x: str) -> None | str:
        """Declare the vector/typed value ``x`` and return a uint expression of its bits."""
        tv = self.fresh("t")
        self.emit(f"{t}{'' if n == 1 else n} {tv} = {x};")
        if n == 1:
            return self.scalar_bits(t, tv)
        expr = self.scalar_bits(t, f"{tv}.s0")
        for i in range(1, n):
            expr = f"mix({expr}, {self.scalar_bits(t, f'{tv}.s{i:x}')})"
        return expr

    # --- statements --------------------------------------------------------------------
    def stmt_arith(self) -> None:
        r = self.rng.random()
        expr, level = self.arith() if r < 0.6 else self.ids() if r < 0.8 else self.load()
        self.declare(expr, level)

    def stmt_store(self) -> None:
        a = self.pick()
        self.emit(f"out[o + {self.slot % NOUT}u] = {a};")
        self.slot += 1

    def stmt_accumulate(self) -> None:
        a = self.pick()
        self.emit(f"acc{self.rng.randrange(2)} = mix(acc{self.rng.randrange(2)}, {a});")

    def stmt_sub_group_collective(self) -> None:
        r = self.rng
        kind = r.choice(("reduce", "scan_inclusive", "scan_exclusive", "broadcast", "all"))
        if kind == "all":
            a = self.pick()
            fn = r.choice(("sub_group_all", "sub_group_any"))
            self.declare(f"({fn}(({a} & {r.choice((1, 3, 255))}u) != 0u) != 0) ? 1u : 0u", SG)
            return
        t = r.choice(COLLECTIVE_TYPES + INTEL_SMALL_TYPES)
        prefix = "intel_" if t in INTEL_SMALL_TYPES else ""
        a = self.pick()
        if kind == "broadcast":
            idx = self.pick(SG)
            x = f"{prefix}sub_group_broadcast({self.typed(t, a, False)}, {idx} % get_sub_group_size())"
            self.declare(self.fold(t, 1, x), SG)
            return
        op = r.choice(OPS)
        x = f"{prefix}sub_group_{kind}_{op}({self.typed(t, a, op == 'add')})"
        self.declare(self.fold(t, 1, x), SG if kind == "reduce" else LANE)

    def stmt_work_group_collective(self) -> None:
        r = self.rng
        kinds = ["reduce", "scan_inclusive", "scan_exclusive", "broadcast", "all"]
        if f"work_group_broadcast:sub-group-{self.launch.sub_group_size}" in self.omit:
            kinds.remove("broadcast")
        kind = r.choice(kinds)
        a = self.pick()
        if kind == "all":
            fn = r.choice(("work_group_all", "work_group_any"))
            self.declare(f"({fn}(({a} & {r.choice((1, 7, 255))}u) != 0u) != 0) ? 1u : 0u", WG)
            return
        if kind == "broadcast":
            t = r.choice([t for t in COLLECTIVE_TYPES
                          if f"work_group_broadcast:{t}" not in self.omit])
            idx = self.pick(WG)
            x = f"work_group_broadcast({self.typed(t, a, False)}, {idx} % get_local_size(0))"
            self.declare(self.fold(t, 1, x), WG)
            return
        t = r.choice(COLLECTIVE_TYPES)
        op = r.choice(OPS)
        x = f"work_group_{kind}_{op}({self.typed(t, a, op == 'add')})"
        self.declare(self.fold(t, 1, x), WG if kind == "reduce" else LANE)

    def stmt_shuffle(self) -> None:
        r = self.rng
        kinds = ["shuffle"] if self.launch.partial else ["shuffle", "down", "up", "xor"]
        kind = r.choice(kinds)
        if r.random() < 0.6:
            t, n = r.choice(SHUFFLE_VECTOR_TYPES), r.choice(WIDTHS)
        else:
            t, n = r.choice(SHUFFLE_SCALAR_TYPES), 1
        if n == 1 and kind in ("shuffle", "xor"):
            t = self.shuffled_type(t)
        a, b, c = self.pick(), self.pick(), self.pick()
        x, y = self.vector(t, n, a, False), self.vector(t, n, b, False)
        s = self.launch.sub_group_size
        if kind == "shuffle":
            call = f"intel_sub_group_shuffle({x}, {c} % get_sub_group_size())"
        elif kind == "xor":
            call = f"intel_sub_group_shuffle_xor({x}, {c} & {s - 1}u)"
        else:
            call = f"intel_sub_group_shuffle_{kind}({x}, {y}, {c} % {s + 1}u)"
        self.declare(self.fold(t, n, call), LANE)

    def shuffled_type(self, t: str) -> str:
        """The scalar type a shuffle or xor shuffle of ``t`` uses: its 32-bit counterpart
        for a 16-bit type with sub-groups of 16 where ``shuffle:16-bit:sub-group-16`` is
        omitted (sgvm.oracle.differences: shuffle-16-bit-abort). Draws nothing from the
        random stream, so the rest of the kernel stays as it was."""
        if self.launch.sub_group_size == 16 and "shuffle:16-bit:sub-group-16" in self.omit:
            return WIDER.get(t, t)
        return t

    def block_kind(self, direction: str) -> tuple[str, str, int]:
        choices = [(suf, t, n) for suf, (t, widths) in BLOCK_TYPES.items() for n in widths
                   if f"intel_sub_group_block_{direction}{suf}{'' if n == 1 else n}" not in self.omit]
        return self.rng.choice(choices)

    def stmt_block_read(self) -> None:
        suffix, t, n = self.block_kind("read")
        a = self.pick(SG)
        ptr = f"(const global {t} *)(in + ({a} & 127u) * 16u)"
        call = f"intel_sub_group_block_read{suffix}{'' if n == 1 else n}({ptr})"
        self.declare(self.fold(t, n, call), LANE)

    def stmt_block_write(self) -> None:
        suffix, t, n = self.block_kind("write")
        a = self.pick()
        vec = self.vector(t, n, a, False)
        self.emit(f"intel_sub_group_block_write{suffix}{'' if n == 1 else n}("
                  f"(global {t} *)(blk + sgr + {self.block_writes * REGION}u), {vec});")
        self.block_writes += 1

    def stmt_local_exchange(self) -> None:
        a, b = self.pick(), self.pick()
        sub_group_ok = self.ctx >= WG or "sub_group_barrier:sub-group-uniform" not in self.omit
        if self.ctx >= WG and (self.rng.random() < 0.6 or not sub_group_ok):
            self.emit(f"lm[get_local_id(0)] = {a};")
            self.emit("barrier(CLK_LOCAL_MEM_FENCE);")
            self.declare(f"lm[{b} % get_local_size(0)]", LANE)
            self.emit("barrier(CLK_LOCAL_MEM_FENCE);")
        else:
            base = "get_sub_group_id() * get_max_sub_group_size()"
            self.emit(f"lm[get_local_id(0)] = {a};")
            self.emit("sub_group_barrier(CLK_LOCAL_MEM_FENCE);")
            self.declare(f"lm[{base} + {b} % get_sub_group_size()]", LANE)
            self.emit("sub_group_barrier(CLK_LOCAL_MEM_FENCE);")

    def stmt_if(self, depth: int) -> None:
        a = self.pick()
        level = self.visible()[a]
        k = self.rng.choice((1, 3, 7))
        self.emit(f"if (({a} & {k}u) {self.rng.choice(('==', '!=', '<'))} {self.rng.randrange(k + 1)}u) {{")
        self.block(min(self.ctx, level), depth + 1)
        if self.rng.random() < 0.4:
            self.emit("} else {")
            self.block(min(self.ctx, level), depth + 1)
        self.emit("}")

    def stmt_loop(self, depth: int) -> None:
        a = self.pick()
        level = min(self.ctx, self.visible()[a])
        # A divergent break lowers the context of the whole body: in later iterations the
        # statements before it run without the work-items that left.
        b = self.pick() if self.rng.random() < 0.3 else None
        if b is not None:
            level = min(level, self.visible()[b])
        i = self.fresh("i")
        self.emit(f"for (uint {i} = 0u; {i} < ({a} & 3u) + {self.rng.randrange(1, 3)}u; {i}++) {{")
        counts = min(self.visible()[a], SG if b is None else self.visible()[b])
        self.scopes.append(_Scope(level, {i: level}, self.tangled and counts >= SG))
        self.body(depth + 1, self.rng.randrange(1, 5))
        if b is not None:
            self.emit(f"if (({b} & 7u) == {self.rng.randrange(8)}u) break;")
            self.body(depth + 1, self.rng.randrange(1, 3))
        self.scopes.pop()
        self.emit("}")

    def block(self, ctx: int, depth: int) -> None:
        self.scopes.append(_Scope(ctx, tangled=self.tangled))
        self.body(depth, self.rng.randrange(1, 5))
        self.scopes.pop()

    def body(self, depth: int, count: int) -> None:
        for _ in range(count):
            if self.budget <= 0:
                return
            self.budget -= 1
            self.statement(depth)

    def statement(self, depth: int) -> None:
        table: list[tuple[float, object]] = [(3, self.stmt_arith), (1.5, self.stmt_store),
                                             (1, self.stmt_accumulate)]
        if depth < MAX_DEPTH:
            table += [(1.2, lambda: self.stmt_if(depth)), (0.8, lambda: self.stmt_loop(depth))]
        if self.ctx >= SG:
            table += [(2.5, self.stmt_sub_group_collective), (2, self.stmt_shuffle)]
            if not (self.launch.partial and "block_read:partial" in self.omit):
                table.append((0.8, self.stmt_block_read))
            if self.ctx >= WG or "sub_group_barrier:sub-group-uniform" not in self.omit:
                table.append((0.5, self.stmt_local_exchange))
            if self.block_writes < BLOCK_WRITES:
                table.append((0.6, self.stmt_block_write))
        if self.ctx >= WG:
            table += [(1.5, self.stmt_work_group_collective), (0.5, self.stmt_local_exchange)]
        if "khr" not in self.omit:
            table += self.khr_table()
        weights = [w for w, _ in table]
        self.rng.choices([f for _, f in table], weights)[0]()

    def kernel(self) -> list[str]:
        self.declare("in[get_global_id(0)]", LANE)
        self.declare("in[get_group_id(0) + 7u]", WG)
        self.body(0, 10**6)
        self.emit(f"out[o + {NOUT - 2}u] = acc0;")
        self.emit(f"out[o + {NOUT - 1}u] = acc1;")
        return self.lines


def random_launch(rng: random.Random, sub_group_size: int) -> Launch:
    s = sub_group_size
    locals_ = [n for n in (s, 2 * s, 4 * s, s + s // 2, 2 * s + 3) if n <= LMAX]
    return Launch(s, rng.choice(locals_), rng.choice((1, 2, 3)))


def generate(seed: int, sub_group_size: int, size_hint: int = 28,
             omit: frozenset[str] = frozenset()) -> Kernel:
    """The kernel of ``seed`` for ``sub_group_size`` (same seed, size and ``omit`` → same
    text); ``omit`` names built-ins not to call."""
    rng = random.Random(seed * 1000003 + sub_group_size)
    launch = random_launch(rng, sub_group_size)
    gen = Generator(rng, launch, size_hint, omit)
    body = gen.kernel()
    return Kernel(f"k{seed}_{sub_group_size}", seed, launch, body, gen.fp16, gen.fp64)
