"""``sgvm icd build`` / ``sgvm icd path``: the OpenCL ICD library and its vendor file.

``build`` makes them in the user cache (``--force``: again); ``path`` prints the
library's and the vendor file's paths, for configuring an ICD loader by hand
(copy the vendor file to /etc/OpenCL/vendors, or set OCL_ICD_VENDORS to its folder).
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("icd", help="build or locate sgvm's OpenCL ICD library",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("build", "path"))
    p.add_argument("--force", action="store_true", help="rebuild even if the library exists")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..icd import build, paths

    where = build(force=args.force) if args.action == "build" else paths()
    print(f"library      {where.library}")
    print(f"vendor file  {where.vendor_file}")
    if not where.built:
        print("(not built yet: run 'sgvm icd build')")
    return 0
