"""Every module the tests produce reads into a Module and writes back byte for byte."""

from __future__ import annotations

from sgvm.spirv import read, write


def test_corpus_is_varied(corpus: dict[str, bytes]) -> None:
    assert len(corpus) >= 40
    assert any(name.endswith("(big-endian)") for name in corpus)


def test_round_trip_is_byte_identical(corpus: dict[str, bytes]) -> None:
    for name, data in corpus.items():
        module = read(data)
        assert write(module) == data, name
        assert module.to_bytes() == data, name


def test_big_endian_reads_like_little_endian(corpus: dict[str, bytes]) -> None:
    for name, data in corpus.items():
        if not name.endswith("(big-endian)"):
            continue
        big = read(data)
        little = read(_swap(data))
        assert big.header.big_endian and not little.header.big_endian
        assert [i.opname for i in big.instructions] == [i.opname for i in little.instructions]
        assert [i.operands for i in big.instructions] == [i.operands for i in little.instructions]


def _swap(data: bytes) -> bytes:
    """Byte-swap every word (big → little)."""
    return b"".join(data[i:i + 4][::-1] for i in range(0, len(data), 4))


def test_module_parts_are_consistent(corpus: dict[str, bytes]) -> None:
    """Every result id is indexed; every block ends in a terminator."""
    for name, data in corpus.items():
        m = read(data)
        results = {i.result_id for i in m.instructions if i.result_id is not None}
        assert set(m.defs) == results, name
        for fn in m.functions.values():
            for block in fn.blocks:
                assert block.terminator.opname in (
                    "OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn",
                    "OpReturnValue", "OpUnreachable"), name
