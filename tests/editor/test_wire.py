"""The bounded line reader both stdio servers share (agent.editor.wire): a line over the limit
is read past in steps and comes out as one TOO_LONG, never held; the lines around it, split
anyhow across reads, come out whole."""

from __future__ import annotations

from agent.editor.wire import TOO_LONG, Lines


async def test_lines_across_reads_and_one_over_the_limit() -> None:
    data = [b"first\nsec", b"ond\n" + b"x" * 30, b"x" * 30, b"x\nafter\n", b"last"]

    async def read() -> bytes:
        return data.pop(0) if data else b""

    lines = Lines(read, limit=16)
    got = [await lines.next() for _ in range(6)]
    assert got == [b"first", b"second", TOO_LONG, b"after", b"last", None]
    assert len(lines.buf) == 0


async def test_a_long_last_line_without_its_newline() -> None:
    data = [b"ok\n", b"y" * 40]

    async def read() -> bytes:
        return data.pop(0) if data else b""

    lines = Lines(read, limit=16)
    assert [await lines.next() for _ in range(3)] == [b"ok", TOO_LONG, None]
