"""Front matter of skills, commands and agent definitions: YAML as such files are written, and
a clear error naming the line for anything else."""

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
    assert fields["description"] == "Folded over two lines.\nNew paragraph.\n"  # as YAML folds
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
        ("---\ntools:\n  - a: 1\n---\n", 3, "not supported"),
        ("---\na: &a [x, x]\nb: [*a, *a]\n---\n", 3, "alias"),
        ("---\nx: " + "[" * 5000 + "\n---\n", 2, "deeply"),
        ("---\nname: x\n   y: 1\n---\n", 3, "indented"),
    ],
)
def test_what_cannot_be_read_names_the_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(FrontMatterError) as e:
        split(text)
    assert e.value.line == line and problem in str(e.value), str(e.value)


def test_yaml_as_claude_code_files_write_it() -> None:
    """Lists on the line after their key, values running on to the next line, flow maps,
    values that are not YAML on their own (read as written), numbers and booleans as text."""
    fields = parse(
        [
            "description: Review the change and then",
            "  report what you found",
            "allowed-tools:",
            "- Bash(git diff:*)",
            "- Read",
            "argument-hint: [pr-number] [priority]  # shown as written",
            "summary: Fix: the parser",
            "metadata: {owner: docs, since: 2024-01-01}",
            "disable-model-invocation: true",
            "version: 1.10",
        ]
    )
    assert fields["description"] == "Review the change and then report what you found"
    assert names_of(fields["allowed-tools"]) == ("Bash(git diff:*)", "Read")
    assert text_of(fields["argument-hint"]) == "[pr-number] [priority]"
    assert fields["summary"] == "Fix: the parser"
    assert fields["metadata"] == {"owner": "docs", "since": "2024-01-01"}
    assert fields["disable-model-invocation"] == "true" and fields["version"] == "1.10"
