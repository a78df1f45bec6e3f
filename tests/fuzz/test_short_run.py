"""A short seeded fuzz run (300 kernels, sub-groups of 8/16/32) in every ``make test``:
the NumPy engine, under the checker, against the results Intel's CPU runtime recorded
for the same kernels (oracle_reference.json, written by
``benchmarks/fuzz_campaign.py --record``), and 36 of them against the native backend where
sgvm has one. The long run is ``make fuzz`` (docs/oracle.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgvm.fuzz import reference
from sgvm.fuzz.backends import make_backend, sgvm_devices
from sgvm.fuzz.campaign import OPTIONS, Stats, batches, kernels_for, launch_of, run_batch
from sgvm.fuzz.generator import program_source

REFERENCE = reference.load(Path(__file__).with_name("oracle_reference.json"))
SIZES = (8, 16, 32)
NATIVE = 12  # kernels per size compared with the native backend


def _kernels(size: int, omit: frozenset[str] = frozenset()):
    seeds = sorted({int(key.split("/")[0]) for key in REFERENCE["kernels"]})
    return kernels_for(seeds, [size], REFERENCE["size_hint"], frozenset(REFERENCE["omit"]) | omit)


@pytest.mark.parametrize("size", SIZES)
def test_numpy_engine_matches_the_recorded_oracle(size):
    import sgvm

    kernels = _kernels(size)
    cpu = make_backend("cpu", check=True)
    compared = 0
    for batch in batches(kernels, 50):
        spirv = sgvm.compile(program_source(batch), OPTIONS)
        for k, got in zip(batch, cpu.run(spirv, [launch_of(k) for k in batch]), strict=True):
            want = REFERENCE["kernels"][f"{k.seed}/{size}"]
            assert want["source"] == reference.digest(k.source().encode()), (
                "the generator changed: rerun benchmarks/fuzz_campaign.py --record "
                "tests/fuzz/oracle_reference.json")
            assert got.error is None, got.error
            assert got.findings == [], f"seed {k.seed}: {got.findings[0]}"
            assert reference.digest(got.buffers[1]) == want["out"], f"seed {k.seed}: out"
            if want["blk"] is not None:
                assert reference.digest(got.buffers[2]) == want["blk"], f"seed {k.seed}: blk"
            compared += 1
    assert compared == 100


@pytest.mark.skipif("native" not in sgvm_devices(), reason="no native backend here")
@pytest.mark.parametrize("size", SIZES)
def test_numpy_engine_matches_the_native_backend(size, capsys):
    """The first 12 kernels without the khr built-ins, one module (25 took clang a minute
    on a CI core, a tenth of the suite's CPU time with an empty cache; ``sgvm fuzz
    --backends cpu,native`` compares any number, and the generator's khr kernels also
    agree, compared once outside the suite: docs/native.md)."""
    stats = Stats()
    backends = [make_backend("cpu"), make_backend("native")]
    run_batch(_kernels(size, frozenset({"khr"}))[:NATIVE], backends, stats)
    assert "runs on the NumPy engine" not in capsys.readouterr().err  # all ran natively
    assert [d.summary() for d in stats.disagreements] == []
    assert stats.agreed == NATIVE
