"""MCP beyond tools, against the SDK-built demo server over stdio: resources listed, read (text,
capped, template, image, binary), judged by permissions and mentioned as `@server:uri`; prompts
run as slash commands with their arguments, in /help and completion; list changes of all three
applied once at a turn boundary."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from live_servers import call, command, demo, pids, session
from prompt_toolkit.document import Document

from agent.base.record import Image, ToolContext
from agent.commands.registry import COMMANDS, Ctx, dispatch, help_rows, live, load_modules
from agent.context.mentions import without_attachments
from agent.mcp.mentions import attach_resources
from agent.mcp.tools import RESOURCE_TOOLS, McpTools
from agent.permissions.decide import decide
from agent.ui.completion import ReplCompleter

__all__ = ["pids"]  # a fixture

PNG_BYTES = 67


async def test_resources_listed_read_and_shown(tmp_path: Path, pids: Path) -> None:
    mt = session([demo(pids)], tmp_path)
    try:
        mt.wait()
        assert mt.sync()
        assert list(mt.tools)[-2:] == [*RESOURCE_TOOLS]  # after the servers' tools
        listed = (await call(mt, "list_mcp_resources")).output
        assert "demo: demo://notes (text/markdown) — Notes: The team's notes." in listed
        assert (
            "demo: template demo://greeting/{name} (text/plain) — Greeting: A greeting." in listed
        )
        assert (await call(mt, "list_mcp_resources", server="demo")).output == listed
        nope = await call(mt, "list_mcp_resources", server="nope")
        assert nope.is_error and "no MCP server 'nope'" in nope.output and "demo" in nope.output

        read = "read_mcp_resource"
        notes = await call(mt, read, server="demo", uri="demo://notes")
        assert notes.output == "# Notes\nthe password is swordfish" and not notes.is_error
        filled = await call(mt, read, server="demo", uri="demo://greeting/ann")
        assert filled.output == "Hello, ann!"
        big = (await call(mt, read, server="demo", uri="demo://big")).output
        assert len(big) <= 12_000 and "characters cut" in big  # the result cap
        data = (await call(mt, read, server="demo", uri="demo://data.bin")).output
        assert (
            data == "[demo://data.bin: application/octet-stream, 1.0 KB; binary content, not shown]"
        )
        seeing = ToolContext(cwd=tmp_path, images=True)
        logo = await call(mt, read, ctx=seeing, server="demo", uri="demo://logo.png")
        assert logo.output == "[image demo://logo.png: 1×1, attached]"
        assert isinstance(logo.image, Image) and logo.image.mime == "image/png"
        assert len(logo.image.data) == PNG_BYTES
        blind = await call(mt, read, server="demo", uri="demo://logo.png")
        assert blind.image is None and "this model does not take images" in blind.output
        missing = await call(mt, read, server="demo", uri="demo://missing")
        assert missing.is_error and "reading demo://missing failed" in missing.output
        other = await call(mt, read, server="other", uri="demo://notes")
        assert other.is_error and "no MCP server 'other'" in other.output

        said = await command(mt, "")
        assert said == "✓ demo: connected · 11 tools · 5 resources · 3 prompts"
        detail = await command(mt, "demo")
        assert "    @demo:demo://notes — Notes" in detail
        assert "    @demo:demo://greeting/{name} — template: name · Greeting" in detail
        assert "    /mcp__demo__review <code> [language]" in detail
    finally:
        await mt.aclose()


def test_resource_reads_are_judged_like_the_servers_tools(tmp_path: Path) -> None:
    mt = McpTools(NS(conns={}, version=0), {}, lambda name: False)  # type: ignore[arg-type]
    from agent.mcp import resources

    listing, read = resources.tools(mt.manager, mt.hidden)
    args = {"server": "demo", "uri": "demo://notes"}

    def verdict(rules: dict[str, Any], mode: str = "default", tool: Any = read) -> tuple[str, str]:
        d = decide(rules, mode, tool, args, tmp_path)
        return d.kind, d.rule

    assert verdict({}) == ("allow", "")  # read-only: no question
    assert verdict({}, "plan") == ("allow", "")
    assert verdict({}, tool=listing) == ("allow", "")
    assert verdict({"neverAllow": ["mcp__demo"]}) == ("deny", "mcp__demo")  # the whole server
    assert verdict({"neverAllow": ["mcp__*"]}) == ("deny", "mcp__*")
    assert verdict({"neverAllow": ["mcp__demo__echo"]}) == ("allow", "")  # one tool only
    assert verdict({"ask": ["read_mcp_resource(de*)"]}) == ("ask", "read_mcp_resource(de*)")
    assert verdict({"ask": ["read_mcp_resource(other)"]}) == ("allow", "")
    assert verdict({"ask": ["mcp__demo"]}) == ("ask", "mcp__demo")


async def test_hidden_servers_and_denied_resource_tools(tmp_path: Path, pids: Path) -> None:
    whole = session([demo(pids)], tmp_path, deny=("mcp__demo",))
    one = session([demo(pids, "two")], tmp_path, deny=("read_mcp_resource",))
    try:
        whole.wait()
        one.wait()
        whole.sync()
        one.sync()
        assert not whole.tools  # no tools, and no resource tools for its resources
        assert [n for n in one.tools if not n.startswith("mcp__")] == ["list_mcp_resources"]
    finally:
        await whole.aclose()
        await one.aclose()


async def test_mentions_attach_resources_with_clear_notes(tmp_path: Path, pids: Path) -> None:
    (tmp_path / "a:b").write_text("a file")  # an existing path is a file mention, not a resource
    mt = session([demo(pids)], tmp_path)  # not waited for: a mention waits for its server
    try:
        text = (
            "compare @demo:demo://notes with @demo:demo://greeting/bo. and @a:b, "
            "@nope:demo://x, @demo:demo://missing and mail @bob:https://example.com"
        )
        ctx = ToolContext(cwd=tmp_path)
        out, images = await attach_resources(text, mt, ctx)
        assert out.startswith(text + "\n\n") and images == []
        blocks = out[len(text) + 2 :].split("\n\n")
        assert blocks[0] == (
            '<resource server="demo" uri="demo://notes">\n# Notes\nthe password is swordfish\n'
            "</resource>"
        )
        assert (
            blocks[1]
            == '<resource server="demo" uri="demo://greeting/bo">\nHello, bo!\n</resource>'
        )
        assert "(not attached: no MCP server 'nope'; servers: demo)" in blocks[2]
        assert "(not attached: MCP server 'demo': reading demo://missing failed" in blocks[3]
        assert len(blocks) == 4  # no file, no web link
        assert without_attachments(out) == text  # one-line summaries show the words only
        seeing = ToolContext(cwd=tmp_path, images=True)
        out, images = await attach_resources("see @demo:demo://logo.png", mt, seeing)
        assert [i.mime for i in images] == ["image/png"]
        assert "[image demo://logo.png: 1×1, attached]" in out
        big, _ = await attach_resources("@demo:demo://big", mt, ctx)
        assert 50_000 <= len(big) < 51_000 and "characters cut" in big  # capped like a file
    finally:
        await mt.aclose()
    alone, _ = await attach_resources("@demo:demo://notes", None, ToolContext(cwd=tmp_path))
    assert "(not attached: no MCP server 'demo'; no MCP servers are configured)" in alone


def _ctx(mt: McpTools, turns: list[str], printed: list[str]) -> Ctx:
    load_modules()  # registers the prompts' live source

    async def turn(text: str) -> Any:
        turns.append(text)

    console = NS(print=lambda text="", **kw: printed.append(str(text)))
    run = NS(mcp=mt, cfg=NS(no_mcp=False))
    return Ctx(run=run, console=console, turn=turn, commands=dict(COMMANDS))  # type: ignore[arg-type]


async def test_prompts_are_commands_with_arguments(tmp_path: Path, pids: Path) -> None:
    mt = session([demo(pids)], tmp_path)
    turns: list[str] = []
    printed: list[str] = []
    ctx = _ctx(mt, turns, printed)
    try:
        assert "mcp__demo__review" not in live(ctx)  # not connected yet: no such command
        mt.wait()
        names = [n for n in live(ctx) if n.startswith("mcp__")]
        assert names == ["mcp__demo__review", "mcp__demo__debate", "mcp__demo__crash"]
        await dispatch(ctx, "/mcp__demo__review")
        assert printed[-1] == (
            "/mcp__demo__review needs <code>; usage: /mcp__demo__review <code> [language]"
        )
        await dispatch(ctx, "/mcp__demo__review 'print(1) + 2'")
        await dispatch(ctx, "/mcp__demo__review LANGUAGE=rust 'fn main() {}'")
        await dispatch(ctx, "/mcp__demo__debate tabs versus  spaces")  # the last takes the rest
        assert turns == [
            "Please review this python code:\nprint(1) + 2",
            "Please review this rust code:\nfn main() {}",
            "[user]\nLet us debate tabs versus spaces.\n\n"
            "[assistant]\nHappy to: which side do I take?\n\n[user]\nThe side against.",
        ]
        await dispatch(ctx, "/mcp__demo__debate topic=a b=c")
        assert printed[-1] == (
            "/mcp__demo__debate has every argument already (got 'b=c'); "
            "usage: /mcp__demo__debate <topic>"
        )
        await dispatch(ctx, "/mcp__demo__debate TOPIC=a b=c")  # a name in any case
        assert len(turns) == 3
        rows = {usage: (text, source) for usage, text, source in help_rows(live(ctx))}
        assert rows["/mcp__demo__review <code> [language]"] == (
            "Review a piece of code.",
            "mcp: demo",
        )
        await dispatch(ctx, "/help mcp__demo__review")
        assert printed[-3:] == [
            "/mcp__demo__review <code> [language]",
            "Review a piece of code.\n\n  code (required)\n  language\n"
            "Arguments go by position (the last one takes the rest) or as key=value.",
            "(mcp: demo)",
        ]
        completer = ReplCompleter(lambda: live(ctx), lambda: ["docs/", "demo.txt"], mt.mentionable)
        found = _complete(completer, "/mcp__demo__r")
        assert found == [("/mcp__demo__review", "Review a piece of code. (mcp)")]
        found = _complete(completer, "look at @demo:demo://g")
        assert found[0] == ("demo:demo://greeting/{name}", "template: name · Greeting")
        files_first = [c for c, _ in _complete(completer, "@dem")]
        assert files_first[:2] == ["demo.txt", "demo:demo://big"] and len(files_first) == 6
    finally:
        await mt.aclose()


def _complete(completer: ReplCompleter, text: str) -> list[tuple[str, str]]:
    got = completer.get_completions(Document(text), None)
    return [(c.text, c.display_meta_text) for c in got]


async def test_a_prompt_that_kills_its_server_restarts_it_once(tmp_path: Path, pids: Path) -> None:
    mt = session([demo(pids)], tmp_path)
    turns: list[str] = []
    printed: list[str] = []
    ctx = _ctx(mt, turns, printed)
    try:
        mt.wait()
        await dispatch(ctx, "/mcp__demo__crash")
        assert printed[-1].startswith(
            "/mcp__demo__crash: the MCP server 'demo' is not connected (failed: the server closed"
        )
        assert turns == []
        await dispatch(ctx, "/mcp__demo__review x")  # restarts it, then runs
        assert turns == ["Please review this python code:\nx"]
    finally:
        await mt.aclose()


async def test_list_changes_reach_the_session_once(tmp_path: Path, pids: Path) -> None:
    mt = session([demo(pids)], tmp_path)
    try:
        mt.wait()
        assert mt.sync()
        before = list(mt.tools)
        assert (await call(mt, "mcp__demo__grow", name="fresh")).output == "added fresh"
        for _ in range(100):  # three notifications: tools, resources, prompts
            st = mt.manager.conns["demo"].state
            if len(st.tools) == 12 and len(st.resources) == 6 and len(st.prompts) == 4:
                break
            await asyncio.sleep(0.05)
        assert "mcp__demo__fresh" not in mt.tools  # not before the turn boundary
        assert mt.sync() and not mt.sync()  # one change for the three lists
        assert list(mt.tools) == [*before[:-2], "mcp__demo__fresh", *before[-2:]]
        assert ("demo:demo://grown/fresh", "fresh") in mt.mentionable()
        assert [n for n, _, _ in mt.prompts()][-1] == "mcp__demo__fresh"
    finally:
        await mt.aclose()
