"""Run many OpenCL C conversions in one kernel on the CPU engine (test-only helper).

Each conversion ``convert_<D><N><suffix>(vload<N>(0, in_<S> + g))`` is stored with
``vstore<N>`` into its own slot of one byte buffer, per work-item ``g``; the
caller compares each slot with a NumPy expectation of the same window
``in_<S>[g:g + N]``. One clang run and one launch cover a whole family.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import sgvm

DTYPES = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
    "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
    "half": np.float16, "float": np.float32, "double": np.float64,
}
INTEGERS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
WIDTHS = (1, 2, 3, 4, 8, 16)
ITEMS = 64  # work-items; item g converts the window starting at element g
PRAGMAS = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"


@dataclass(frozen=True)
class Conversion:
    """``convert_<dst><width><suffix>`` applied to a ``src`` value (or vector)."""

    src: str
    dst: str
    width: int
    suffix: str = ""  # "", "_sat", "_rte", "_sat_rtz", ...

    @property
    def name(self) -> str:
        n = "" if self.width == 1 else str(self.width)
        return f"convert_{self.dst}{n}{self.suffix}"

    def expression(self, operand: str) -> str:
        return f"{self.name}({operand})"


def _load(src: str, width: int) -> str:
    return f"in_{src}[g]" if width == 1 else f"vload{width}(0, in_{src} + g)"


def _store(dst: str, width: int, value: str, offset: int) -> str:
    ptr = f"(global {dst} *)(o + {offset})"
    return f"*{ptr} = {value};" if width == 1 else f"vstore{width}({value}, 0, {ptr});"


def run_conversions(
    conversions: list[Conversion],
    inputs: dict[str, np.ndarray],
    statement=None,
) -> dict[Conversion, np.ndarray]:
    """Run every conversion over ``ITEMS`` windows; return each result as an (ITEMS, width) array.

    ``statement(conv, operand) -> str`` gives the expression to store instead of
    ``convert_...(operand)`` (for implicit conversions).
    """
    offsets, pos = {}, 0
    for c in conversions:
        offsets[c] = pos
        pos += -(-c.width * np.dtype(DTYPES[c.dst]).itemsize // 8) * 8
    stride = pos
    sources = sorted({c.src for c in conversions}, key=list(DTYPES).index)
    params = ", ".join(f"global const {s} *in_{s}" for s in sources)
    body = "\n".join(
        "  " + _store(c.dst, c.width, (statement or Conversion.expression)(c, _load(c.src, c.width)), offsets[c])
        for c in conversions
    )
    src = (f"{PRAGMAS}kernel void conv({params}, global uchar *out) {{\n"
           f"  size_t g = get_global_id(0);\n  global uchar *o = out + g * {stride};\n{body}\n}}\n")
    out = np.zeros(ITEMS * stride, np.uint8)
    args = []
    for s in sources:
        assert len(inputs[s]) >= ITEMS + 16 and inputs[s].dtype == DTYPES[s]
        args.append(np.ascontiguousarray(inputs[s]))
    sgvm.run(src, "conv", (ITEMS,), None, *args, out, options="-cl-std=CL2.0")
    rows = out.reshape(ITEMS, stride)
    results = {}
    for c in conversions:
        size = c.width * np.dtype(DTYPES[c.dst]).itemsize
        results[c] = rows[:, offsets[c]:offsets[c] + size].copy().view(DTYPES[c.dst])
    return results


def windows(values: np.ndarray, width: int) -> np.ndarray:
    """The (ITEMS, width) windows ``values[g:g + width]`` that work-item g converts."""
    return np.stack([values[g:g + width] for g in range(ITEMS)])


def integer_inputs(seed: int = 12) -> dict[str, np.ndarray]:
    """ITEMS + 16 values per integer type: every type's limits and neighbours, then random bits."""
    edges = [0, 1, -1, 2, -2, 127, 128, -128, -129, 200, 255, 256, 32767, 32768, -32768, -32769,
             65535, 65536, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32,
             2**63 - 1, -2**63, 2**64 - 1, 0x1234_5678_9ABC_DEF0, 100, -100]
    rng = np.random.default_rng(seed)
    out = {}
    for name in INTEGERS:
        dtype = np.dtype(DTYPES[name])
        bits = 8 * dtype.itemsize
        vals = [(v % 2**bits) for v in edges] + [int(x) for x in rng.integers(0, 2**bits, ITEMS + 16 - len(edges),
                                                                                 dtype=np.uint64)]
        unsigned = np.array(vals, dtype=np.uint64).astype(f"u{dtype.itemsize}")
        out[name] = unsigned.view(dtype)
    return out
