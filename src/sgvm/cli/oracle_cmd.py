"""``sgvm oracle info``: whether Intel's CPU runtime works here as sgvm's oracle (docs/oracle.md)."""

from __future__ import annotations

import argparse
import json

from ..errors import SgvmError

INTERESTING = ("cl_intel_subgroups", "cl_intel_subgroups_char", "cl_intel_subgroups_short",
               "cl_intel_subgroups_long", "cl_intel_required_subgroup_size",
               "cl_intel_subgroup_local_block_io", "cl_khr_subgroup_ballot",
               "cl_khr_subgroup_non_uniform_arithmetic", "cl_khr_subgroup_shuffle")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "oracle", help="Intel's CPU runtime as a second implementation (sgvm[oracle])",
        description="Differential testing against Intel's CPU runtime for OpenCL.")
    sub = p.add_subparsers(dest="oracle_command", metavar="ACTION", required=True)
    info = sub.add_parser("info", help="say whether the oracle works here",
                          description="Write the vendor file, start the oracle, print its device.")
    info.add_argument("--json", action="store_true", help="print machine-readable JSON")
    info.set_defaults(func=run_info)


def run_info(args: argparse.Namespace) -> int:
    from ..oracle import Oracle, OracleUnavailable, vendor_folder

    try:
        with Oracle() as oracle:
            facts = dict(oracle.info())
        facts["vendor_folder"] = str(vendor_folder())
    except OracleUnavailable as exc:
        raise SgvmError(f"oracle unavailable: {exc}") from None
    if args.json:
        print(json.dumps(facts, indent=2))
        return 0
    print(f"oracle: works ({facts['platform']}, {facts['platform_version']})")
    print(f"device: {facts['device']} ({facts['version']}, driver {facts['driver']})")
    if facts["sub_group_sizes"] is not None:
        print(f"sub-group sizes: {' '.join(map(str, facts['sub_group_sizes']))}")
    exts = set(facts["extensions"])
    print("extensions: " + " ".join(f"{e}{'' if e in exts else ' (missing)'}" for e in INTERESTING))
    print(f"vendor file: {facts['vendor_folder']}")
    return 0
