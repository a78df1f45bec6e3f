"""The ``sgvm`` command through a subprocess: dis, info, and clean failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgvm.runtime.device import CPU_DEVICE

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from spirv.handmade import SOURCES, assemble  # noqa: E402


def sgvm(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-m", "sgvm", *args], input=stdin,
                          capture_output=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env, text = SOURCES["handmade spec"]
    try:
        data = assemble(text, env)
    except FileNotFoundError:
        pytest.skip("spirv-as not installed")
    path = tmp_path_factory.mktemp("cli") / "k.spv"
    path.write_bytes(data)
    return path


def _clean_failure(proc: subprocess.CompletedProcess, status: int, fragment: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == status, err
    assert err.count("\n") == 1 and err.startswith("sgvm: error: "), err
    assert fragment in err and "Traceback" not in err
    assert proc.stdout == b""


def test_dis_prints_the_module(module: Path) -> None:
    proc = sgvm("dis", str(module))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[:2] == ["; SPIR-V", "; Version: 1.2"]
    assert "               OpEntryPoint Kernel %main \"main\" %gid" in lines
    assert "               OpExecutionMode %main SubgroupSize 16" in lines
    assert any(line.endswith("= OpSpecConstantOp %uint IAdd %8 %uint_5") for line in lines)


def test_dis_raw_ids_stdin_and_output_file(module: Path, tmp_path: Path) -> None:
    proc = sgvm("dis", "--raw-id", "--no-header", "-", stdin=module.read_bytes())
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert not text.startswith(";") and "%main" not in text
    out = tmp_path / "k.spvasm"
    assert sgvm("dis", str(module), "-o", str(out)).returncode == 0
    assert out.read_text().startswith("; SPIR-V")


def test_dis_text_file(tmp_path: Path) -> None:
    path = tmp_path / "k.cl"
    path.write_text("__kernel void k(__global int *a) { a[0] = 1; }\n")
    _clean_failure(sgvm("dis", str(path)), 2, "word 0: bad magic number")


def test_dis_truncated_module(module: Path, tmp_path: Path) -> None:
    path = tmp_path / "cut.spv"
    path.write_bytes(module.read_bytes()[:-12])
    _clean_failure(sgvm("dis", str(path)), 2, "malformed SPIR-V: ")


def test_dis_random_bytes(tmp_path: Path) -> None:
    path = tmp_path / "noise.spv"
    path.write_bytes(bytes(range(7, 250, 3)))
    _clean_failure(sgvm("dis", str(path)), 2, "malformed SPIR-V: ")


def test_dis_empty_input() -> None:
    _clean_failure(sgvm("dis", "-", stdin=b""), 2, "too short for a SPIR-V header")


def test_dis_missing_file_and_directory(tmp_path: Path) -> None:
    _clean_failure(sgvm("dis", str(tmp_path / "nope.spv")), 1, "No such file or directory")
    _clean_failure(sgvm("dis", str(tmp_path)), 1, "cannot read")


def test_info_text() -> None:
    proc = sgvm("info")
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert "Platform Name" in text and CPU_DEVICE.name in text
    assert "cl_intel_subgroups" in text and "8, 16, 32" in text
    assert any(line.split() == ["Image", "support", "Yes"] for line in text.splitlines())


def test_info_json() -> None:
    proc = sgvm("info", "--json")
    assert proc.returncode == 0
    info = json.loads(proc.stdout)
    assert info["platform"]["name"] == "sgvm"
    native, cpu = info["devices"][:2]  # the default first
    assert native["backend"] == "native" and native["available"] is True
    assert cpu["name"] == CPU_DEVICE.name and cpu["available"] is True
    assert cpu["sub_group_sizes"] == list(CPU_DEVICE.sub_group_sizes)
    assert cpu["max_work_group_size"] == CPU_DEVICE.max_work_group_size
    assert cpu["local_mem_size"] == CPU_DEVICE.local_mem_size
    assert cpu["image_support"] is CPU_DEVICE.image_support
    assert "cl_intel_subgroups" in cpu["extensions"]
