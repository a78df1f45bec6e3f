"""PyOpenCL's own test suite on the sgvm platform (``make peer``), optionally beside PoCL.

Downloads PyOpenCL's source distribution (pinned; it holds ``test/``) with pip, runs
each test file with pytest against one platform at a time (``OCL_ICD_VENDORS`` names
only that platform's vendor file), prints passed/failed/skipped per file, and with
``--compare`` lists every test that passes on PoCL but not on sgvm, with why, and the
share of PoCL's passing tests that pass on sgvm.

    python tests/peer/pyopencl_suite.py [--compare] [--files test_array.py …] [-k EXPR]
        [--platform sgvm|pocl] [--device cpu|native] [--deadline SECONDS]
        [--save FILE] [--load FILE …]

sgvm's platform lists several devices (docs/native.md) and PyOpenCL's tests run on every
device they see, so the sgvm runs see one: ``--device`` (``SGVM_DEVICE``), by default
``cpu``, the platform's default device (the NumPy engine). ``--deadline`` fails a test
that takes longer (tests/peer/deadline.py; default 1800 s). PoCL comes from Debian
(``apt-get install pocl-opencl-icd``); ``--compare`` needs it. ``--save`` keeps the
outcomes as JSON (after every file); ``--load`` adds saved outcomes (e.g. PoCL's from an
earlier run, or shards of a long run) instead of running that platform again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

VERSION = "2026.1.4"
FILES = ("test_wrapper.py", "test_array.py", "test_algorithm.py", "test_clmath.py", "test_clrandom.py",
         "test_enqueue_copy.py", "test_arrays_in_structs.py")
POCL_VENDOR = Path("/etc/OpenCL/vendors/pocl.icd")
ROOT = Path(__file__).resolve().parents[2]
# test ids name the platform's device; compare them without it
_DEVICE = re.compile(r"<context factory for <pyopencl\.Device '[^']*' on '[^']*'>>|<pyopencl\.Platform '[^']*'>")


def sdist_tests() -> Path:
    """PyOpenCL's ``test/`` folder from its pinned source distribution (downloaded once)."""
    sys.path.insert(0, str(ROOT / "src"))
    from sgvm.compiler.cache import cache_dir

    base = cache_dir() / "peer" / f"pyopencl-{VERSION}"
    tests = base / f"pyopencl-{VERSION}" / "test"
    if tests.is_dir():
        return tests
    base.mkdir(parents=True, exist_ok=True)
    # The sdist's metadata step needs scikit-build-core and nanobind; no compiler runs.
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "scikit-build-core", "nanobind"], check=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    "--no-build-isolation", f"pyopencl=={VERSION}", "-d", str(base)], check=True)
    with tarfile.open(base / f"pyopencl-{VERSION}.tar.gz") as tar:
        tar.extractall(base, filter="data")
    return tests


def platform_env(name: str, device: str) -> dict[str, str]:
    paths = [str(ROOT / "src"), str(Path(__file__).parent), os.environ.get("PYTHONPATH")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, paths)))
    env.pop("OCL_ICD_FILENAMES", None)
    if name == "pocl":
        env["OCL_ICD_VENDORS"] = str(POCL_VENDOR)
    else:
        from sgvm.icd import build

        env["OCL_ICD_VENDORS"] = str(build().vendors_dir)
        env["SGVM_DEVICE"] = device
    return env


Outcome = list[str]  # [passed | failed | skipped, why (the failure's or skip's message)]


def run_file(tests: Path, name: str, platform: str, extra: list[str], device: str,
             deadline: float) -> dict[str, Outcome]:
    """{test id: [outcome, why]} for one test file on one platform."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "out.xml"
        subprocess.run([sys.executable, "-m", "pytest", name, "-q", "-p", "no:cacheprovider", "-p", "no:warnings",
                        "-p", "no:xdist", "-p", "deadline", f"--deadline={deadline}", "--tb=no",
                        f"--junitxml={xml}", *extra], cwd=tests, env=platform_env(platform, device),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not xml.exists():
            return {f"{name}::<collection>": ["failed", "pytest wrote no report"]}
        outcome = {}
        for case in ET.parse(xml).getroot().iter("testcase"):
            test = _DEVICE.sub("<device>", f"{case.get('classname')}::{case.get('name')}")
            bad = [c for c in case if c.tag in ("failure", "error")]
            skipped = [c for c in case if c.tag == "skipped"]
            why = (bad or skipped or [None])[0]
            text = (why.get("message") or "") if why is not None else ""
            outcome[test] = ["failed" if bad else "skipped" if skipped else "passed",
                             text.splitlines()[0][:300] if text else ""]
        return outcome


def _counts(results: dict[str, Outcome]) -> str:
    return " ".join(f"{k} {sum(v[0] == k for v in results.values()):4d}" for k in ("passed", "failed", "skipped"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", action="store_true", help="run on sgvm and PoCL and compare")
    ap.add_argument("--platform", choices=("sgvm", "pocl"), help="run on this platform only")
    ap.add_argument("--files", nargs="+", default=list(FILES))
    ap.add_argument("-k", help="pytest -k expression")
    ap.add_argument("--device", choices=("cpu", "native"), default="cpu",
                    help="the sgvm device the tests see (SGVM_DEVICE; default cpu, the platform's default)")
    ap.add_argument("--deadline", type=float, default=1800.0, metavar="SECONDS",
                    help="fail a test that runs longer (default 1800)")
    ap.add_argument("--save", help="write the outcomes to this JSON file")
    ap.add_argument("--load", nargs="+", default=[], help="outcomes saved earlier, by platform")
    args = ap.parse_args()
    total: dict[str, dict[str, Outcome]] = {}
    for path in args.load:
        for p, results in json.loads(Path(path).read_text()).items():
            total.setdefault(p, {}).update(results)
    platforms = [args.platform] if args.platform else ["sgvm", "pocl"] if args.compare else ["sgvm"]
    platforms = [p for p in platforms if p not in total]
    if "pocl" in platforms and not POCL_VENDOR.exists():
        print(f"PoCL is not installed ({POCL_VENDOR}): apt-get install pocl-opencl-icd", file=sys.stderr)
        return 2
    tests = sdist_tests()
    extra = ["-k", args.k] if args.k else []
    for name in args.files:
        for p in platforms:
            results = run_file(tests, name, p, extra, args.device, args.deadline)
            total.setdefault(p, {}).update(results)
            label = f"sgvm ({args.device})" if p == "sgvm" else p
            print(f"{name:28s} {label:12s} {_counts(results)}", flush=True)
            if args.save:  # after every file: a long run stopped early keeps what it did
                Path(args.save).write_text(json.dumps(total, indent=1))
    if "sgvm" in total and "pocl" in total:
        compare(total["sgvm"], total["pocl"])
    return 0


def compare(sgvm: dict[str, Outcome], pocl: dict[str, Outcome]) -> None:
    """Per file: PoCL's passes and how many of them pass on sgvm; then each one that does not."""
    reference = [t for t, v in pocl.items() if v[0] == "passed"]
    missing = [t for t in reference if sgvm.get(t, ["absent"])[0] != "passed"]
    print(f"\n{'file':28s} {'PoCL passed':>11s} {'sgvm passed':>11s}")
    for name in sorted({t.split("::")[0] for t in reference}):
        ref = [t for t in reference if t.split("::")[0] == name]
        print(f"{name:28s} {len(ref):11d} {sum(t not in missing for t in ref):11d}")
    share = 1 - len(missing) / max(len(reference), 1)
    print(f"\nof {len(reference)} tests passing on PoCL, {len(reference) - len(missing)} pass on sgvm "
          f"({share:.1%})")
    for t in missing:
        outcome, why = sgvm.get(t, ["not run", "absent from the sgvm outcomes"])
        print(f"  not on sgvm: {t} ({outcome}: {why})")


if __name__ == "__main__":
    sys.exit(main())
