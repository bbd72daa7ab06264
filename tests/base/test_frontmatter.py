"""Front matter of skills, commands and agent definitions: the YAML subset they use, and a
clear error naming the line for anything else."""

from __future__ import annotations

import pytest

from agent.base.frontmatter import FrontMatterError, names_of, parse, split, text_of


def test_plain_quoted_and_commented_values() -> None:
    fields, body = split(
        '---\nname: pdf-tools\ndescription: "Fill PDF forms: \\"fast\\""  # quoted\n'
        "hint: 'it''s'\nmodel: sonnet # a comment\n---\n\n# Body\ntext\n"
    )
    assert fields == {
        "name": "pdf-tools",
        "description": 'Fill PDF forms: "fast"',
        "hint": "it's",
        "model": "sonnet",
    }
    assert body == "# Body\ntext"


def test_block_scalars_lists_and_nested_maps() -> None:
    fields = parse(
        [
            "description: >",
            "  Folded over",
            "  two lines.",
            "",
            "  New paragraph.",
            "notes: |-",
            "  kept",
            "    indented",
            "allowed-tools:",
            "  - Bash(git add:*)",
            "  - Read",
            "tools: [Read, 'Grep', Glob]",
            "metadata:",
            "  version: 1.0",
            "  owner:",
            "    team: docs",
        ]
    )
    assert fields["description"] == "Folded over two lines.\n\nNew paragraph.\n"
    assert fields["notes"] == "kept\n  indented"
    assert names_of(fields["allowed-tools"]) == ("Bash(git add:*)", "Read")
    assert names_of(fields["tools"]) == ("Read", "Grep", "Glob")
    assert fields["metadata"] == {"version": "1.0", "owner": {"team": "docs"}}


def test_names_split_on_commas_or_spaces_outside_parentheses() -> None:
    assert names_of("Read, Bash(git add:*, git commit:*)") == (
        "Read",
        "Bash(git add:*, git commit:*)",
    )
    assert names_of("Bash(git status) Read  Grep") == ("Bash(git status)", "Read", "Grep")
    assert names_of(None) is None


def test_a_flow_list_keeps_its_text_for_hints() -> None:
    fields = parse(["argument-hint: [pr-number] [priority]", "tools: [a, b]"])
    assert text_of(fields["argument-hint"]) == "[pr-number] [priority]"
    assert names_of(fields["tools"]) == ("a", "b")


def test_no_front_matter_is_all_body() -> None:
    assert split("just text\n") == ({}, "just text")
    assert split("\ufeff---\nname: x\n---\nbody") == ({"name": "x"}, "body")


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("---\nname: x\n", 1, "never closed"),
        ("---\nname: x\nthis is not yaml\n---\n", 3, "expected `key: value`"),
        ("---\nname: x\nname: y\n---\n", 3, "appears twice"),
        ('---\ndescription: "open\n---\n', 2, "does not close"),
        ("---\nname: x\n\tdescription: y\n---\n", 3, "tab"),
        ("---\ntools: {a: 1}\n---\n", 2, "not supported"),
        ("---\nname: x\n   y: 1\n---\n", 3, "indented"),
    ],
)
def test_what_cannot_be_read_names_the_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(FrontMatterError) as e:
        split(text)
    assert e.value.line == line and problem in str(e.value), str(e.value)
