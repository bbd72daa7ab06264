"""read_file of images: dimensions from the header; for a model that takes images the image
goes after the tool results (scaled down with Pillow when large; refused with the install line
without it); for one that does not, a line with type, size and dimensions. JSON output and
transcripts name the file, never carry the data; @image.png points at read_file."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, text, tool_calls
from helpers import run_agent
from routed_fake import close_runs, make_run

from agent.base.messages import IMAGE_TOKENS, image_message, text_of
from agent.base.record import ToolContext
from agent.base.tokens import estimate_message
from agent.context.mentions import attach
from agent.tools.files import read as files
from agent.tools.files.images import dimensions

PIL = pytest.importorskip("PIL.Image")


def picture(path: Path, size: tuple[int, int], fmt: str) -> Path:
    im = PIL.new("RGB", size, (200, 30, 30))
    im.save(path, fmt)
    return path


@pytest.fixture(autouse=True)
async def _closed() -> AsyncIterator[None]:
    yield
    await close_runs()


@pytest.mark.parametrize(("fmt", "kind"), [("PNG", "PNG"), ("GIF", "GIF"), ("JPEG", "JPEG"),
                                           ("WEBP", "WebP")])  # fmt: skip
def test_dimensions_from_the_header(fmt: str, kind: str) -> None:
    out = io.BytesIO()
    PIL.new("RGB", (321, 123)).save(out, fmt)
    assert dimensions(out.getvalue()) == (kind, 321, 123)
    assert dimensions(b"not an image at all") is None


async def test_a_model_without_images_gets_a_line(tmp_path: Path) -> None:
    picture(tmp_path / "shot.png", (640, 480), "PNG")
    r = await files.READ_FILE.run({"path": "shot.png"}, ToolContext(cwd=tmp_path))
    assert not r.is_error and r.image is None
    assert (
        r.output.startswith("shot.png: PNG image, 640×480") and "does not take images" in r.output
    )


async def test_a_model_with_images_gets_the_image(tmp_path: Path) -> None:
    picture(tmp_path / "shot.png", (640, 480), "PNG")
    r = await files.READ_FILE.run({"path": "shot.png"}, ToolContext(cwd=tmp_path, images=True))
    assert r.image is not None and r.image.url().startswith("data:image/png;base64,")
    assert r.output == "[shot.png: PNG image, 640×480, 1 KB: the image follows the tool results]"
    big = picture(tmp_path / "big.jpg", (3000, 1500), "JPEG")
    r = await files.READ_FILE.run({"path": big.name}, ToolContext(cwd=tmp_path, images=True))
    assert r.image is not None and (r.image.width, r.image.height) == (2000, 1000)
    assert "scaled to 2000×1000" in r.output


async def test_without_pillow_a_large_image_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picture(tmp_path / "big.png", (2500, 100), "PNG")
    monkeypatch.setitem(sys.modules, "PIL", None)
    r = await files.READ_FILE.run({"path": "big.png"}, ToolContext(cwd=tmp_path, images=True))
    assert r.is_error and "pip install 'agent[images]'" in r.output


def test_transcripts_and_estimates_never_carry_the_data() -> None:
    m = image_message(
        "[the images read above: a.png (10×10)]", ["data:image/png;base64," + "A" * 50_000]
    )
    assert text_of(m) == "[the images read above: a.png (10×10)]\n[image]"
    assert estimate_message(m) < IMAGE_TOKENS + 50


async def test_the_image_follows_the_tool_results(fake: FakeOpenAI, tmp_path: Path) -> None:
    picture(tmp_path / "ui.png", (80, 60), "PNG")
    fake.script(tool_calls([("read_file", {"path": "ui.png"})]), text("a red square"))
    run, _ = make_run(fake, tmp_path, settings={"tools": {"images": True}})
    await run.turn("what does ui.png show?")
    msgs = fake.requests[-1]["messages"]
    assert [m["role"] for m in msgs[-2:]] == ["tool", "user"]
    parts = msgs[-1]["content"]
    assert parts[0] == {"type": "text", "text": "[the images read above: ui.png (80×60)]"}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_json_output_names_the_file_never_the_data(
    fake: FakeOpenAI, fake_env: dict[str, str], tmp_path: Path
) -> None:
    picture(tmp_path / "ui.png", (80, 60), "PNG")
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps({"tools": {"images": True}}))
    fake.script(tool_calls([("read_file", {"path": "ui.png"})]), text("red"))
    r = run_agent(fake_env, tmp_path, "--output-format", "stream-json", "--trust-project", "look")
    assert r.returncode == 0, r.stderr
    assert "ui.png" in r.stdout and "base64" not in r.stdout


def test_an_image_mention_is_described_in_the_text(tmp_path: Path) -> None:
    picture(tmp_path / "shot.png", (30, 20), "PNG")
    out = attach("look at @shot.png", tmp_path)
    assert "(PNG image, 30×20; attached when the model takes images)" in out


async def test_mentioned_and_pasted_images_join_the_message(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    picture(tmp_path / "a.png", (30, 20), "PNG")
    picture(tmp_path / "b.jpg", (40, 10), "JPEG")
    fake.script(text("two pictures"), text("none"))
    run, _ = make_run(fake, tmp_path, settings={"tools": {"images": True}})
    await run.turn(f"compare @a.png with {tmp_path / 'b.jpg'}")
    content = fake.requests[0]["messages"][-1]["content"]
    assert content[0]["type"] == "text" and "compare @a.png" in content[0]["text"]
    assert [p["image_url"]["url"][:15] for p in content[1:]] == [
        "data:image/png;",
        "data:image/jpeg",
    ]
    plain, _ = make_run(fake, tmp_path / "x", settings={"tools": {"images": False}})
    (tmp_path / "x" / "a.png").write_bytes((tmp_path / "a.png").read_bytes())
    await plain.turn("look at @a.png")
    assert isinstance(fake.requests[1]["messages"][-1]["content"], str)  # text only
