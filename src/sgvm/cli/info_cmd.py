"""``sgvm info``: the platform and its devices, like ``clinfo`` (values from runtime/device.py)."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import sys
from typing import Any

from .. import __version__
from ..runtime.device import CPU_DEVICE, DEVICES, DeviceModel

_KIB = 1024


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "info", help="show sgvm's platform and devices (like clinfo)",
        description="Show the OpenCL platform and devices sgvm provides, with their limits.")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=run)


def platform() -> dict[str, Any]:
    """clGetPlatformInfo values."""
    return {
        "name": "sgvm",
        "vendor": CPU_DEVICE.vendor,
        "version": f"OpenCL 3.0 sgvm {__version__}",
        "profile": "FULL_PROFILE",
        "extensions": list(CPU_DEVICE.extensions),
    }


def devices() -> list[dict[str, Any]]:
    """Every device model as a dict, plus its backend and whether it can run here."""
    from ..engine import backend as backends

    out = []
    for backend, model in DEVICES.items():
        available = backend == "cpu" or (importlib.util.find_spec("cupy") is not None
                                           if backend == "cuda" else backends.get(backend).available())
        entry = {"backend": backend, "available": available}
        entry.update(_jsonable(dataclasses.asdict(model)))
        entry["extensions_with_version"] = {  # CL_DEVICE_EXTENSIONS_WITH_VERSION
            name: f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}" for name, v in model.extensions_with_version()}
        out.append(entry)
    return out


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def _size(n: int) -> str:
    for unit, scale in (("GiB", _KIB**3), ("MiB", _KIB**2), ("KiB", _KIB)):
        if n >= scale and n % scale == 0:
            return f"{n} ({n // scale}{unit})"
    return str(n)


def _device_lines(d: DeviceModel, backend: str, available: bool) -> list[tuple[str, Any]]:
    return [
        ("Device Name", d.name),
        ("Device Vendor", d.vendor),
        ("Device Version", d.version),
        ("Driver Version", d.driver_version),
        ("Device OpenCL C Version", d.opencl_c_version),
        ("Backend", backend + ("" if available else " (not available on this machine)")),
        ("IL version", d.il_version),
        ("Max compute units", d.max_compute_units),
        ("Max work item dimensions", d.max_work_item_dimensions),
        ("Max work item sizes", "x".join(map(str, d.max_work_item_sizes))),
        ("Max work group size", d.max_work_group_size),
        ("Sub-group sizes (Intel)", ", ".join(map(str, d.sub_group_sizes))),
        ("Default sub-group size", d.default_sub_group_size),
        ("Max number of sub-groups", d.max_num_sub_groups),
        ("Address bits", d.address_bits),
        ("Global memory size", _size(d.global_mem_size)),
        ("Max memory allocation", _size(d.max_mem_alloc_size)),
        ("Local memory size", _size(d.local_mem_size)),
        ("Max constant buffer size", _size(d.max_constant_buffer_size)),
        ("Max constant args", d.max_constant_args),
        ("Max size of kernel argument", d.max_parameter_size),
        ("Alignment of base address", f"{d.mem_base_addr_align} bits"),
        ("printf() buffer size", _size(d.printf_buffer_size)),
        ("Image support", "Yes" if d.image_support else "No"),
        ("Max 2D image size", f"{d.image2d_max_width}x{d.image2d_max_height} pixels"),
        ("Max 3D image size",
         f"{d.image3d_max_width}x{d.image3d_max_height}x{d.image3d_max_depth} pixels"),
        ("Max image buffer size", f"{d.image_max_buffer_size} pixels"),
        ("Max image array size", f"{d.image_max_array_size} images"),
        ("Image pitch alignment", f"{d.image_pitch_alignment} pixels"),
        ("Max read image args", d.max_read_image_args),
        ("Max write image args", d.max_write_image_args),
        ("Max samplers", d.max_samplers),
        ("Single-precision FP config", " ".join(d.fp_config)),
        ("Device Extensions", " ".join(d.extensions)),
        ("OpenCL C features", " ".join(d.opencl_c_features)),
        ("SPIR-V extensions", " ".join(d.spirv_extensions)),
    ]


def icd() -> dict[str, Any]:
    """Whether the OpenCL ICD library is built, and where (``sgvm icd build``)."""
    try:
        from ..icd import paths

        where = paths()
    except ImportError as exc:  # cffi missing
        return {"built": False, "library": None, "vendor_file": None, "problem": str(exc)}
    return {"built": where.built, "library": str(where.library), "vendor_file": str(where.vendor_file)}


def _icd_line(state: dict[str, Any]) -> str:
    if state["built"]:
        return f"built: {state['library']}"
    return f"not built ({state.get('problem') or 'sgvm icd build'})"


def text() -> str:
    """The clinfo-style report."""
    p = platform()
    rows: list[tuple[str, Any]] = [
        ("OpenCL ICD library", _icd_line(icd())),
        ("Number of platforms", 1),
        ("  Platform Name", p["name"]),
        ("  Platform Vendor", p["vendor"]),
        ("  Platform Version", p["version"]),
        ("  Platform Profile", p["profile"]),
        ("  Platform Extensions", " ".join(p["extensions"])),
    ]
    devs = devices()
    rows.append(("Number of devices", len(devs)))
    for model, entry in zip(DEVICES.values(), devs, strict=True):
        rows.append(("", ""))
        rows.extend((f"  {k}", v) for k, v in _device_lines(model, entry["backend"],
                                                             entry["available"]))
    return "\n".join(f"{k:<40}{v}".rstrip() for k, v in rows) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.json:
        sys.stdout.write(json.dumps({"platform": platform(), "devices": devices(), "icd": icd()}, indent=2)
                         + "\n")
    else:
        sys.stdout.write(text())
    return 0
