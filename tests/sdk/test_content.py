"""What a program's user message becomes: its text, its images, the text of tool results it
sends (agent.sdk.main.content_of)."""

from __future__ import annotations

import base64

from agent.sdk.main import content_of

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


def test_a_string_is_the_prompt() -> None:
    assert content_of({"role": "user", "content": "hello"}) == ("hello", [])


def test_blocks_give_text_images_and_tool_results() -> None:
    data = base64.b64encode(PNG).decode()
    message = {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is in this picture?"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": data},
            },
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "text", "text": "42"}],
            },
            {"type": "tool_result", "tool_use_id": "t2", "content": "plain"},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/x.png"}},
            "not a block",
        ],
    }
    text, images = content_of(message)
    said = "[an image was sent as 'url', which is not attached]"
    assert text == f"what is in this picture?\n\n42\n\nplain\n\n{said}"
    assert [(i.mime, i.data) for i in images] == [("image/png", PNG)]


def test_nothing_usable_is_an_empty_prompt() -> None:
    assert content_of(None) == ("", [])
    assert content_of({"content": 7}) == ("", [])
