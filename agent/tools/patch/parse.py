"""The patch format Codex models write (`*** Begin Patch` … `*** End Patch`): parsed into file
operations, and each update's hunks located in a file's text.

    *** Begin Patch
    *** Add File: path          then every line starts with +
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       (optional, right after Update)
    @@ optional line to find first (a def, a class)
     context line
    -removed line
    +added line
    *** End of File             (optional: the hunk ends the file)
    *** End Patch

Accepted as Codex's parser accepts it: wrapped in a heredoc or a `bash -lc` call
(agent.tools.patch.wrapped), its markers and file headers padded with spaces. Context and
removed lines match the file line for line: exactly, or failing that with whitespace around
them or typographic punctuation forgiven (agent.tools.patch.seek); never a fuzzy search across
unrelated lines. Hunks apply in order, each after the previous one; an updated file ends with
a newline, as Codex writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.tools.patch.seek import seek
from agent.tools.patch.wrapped import unwrap
from agent.tools.shared.common import ToolError

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = (
    "*** Add File: ",
    "*** Delete File: ",
    "*** Update File: ",
    "*** Move to: ",
)
EOF_MARK = "*** End of File"


@dataclass
class Hunk:
    anchor: str = ""  # the text after @@: a line to find before the hunk
    lines: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", text)
    at_end: bool = False  # *** End of File: the hunk's old lines end the file

    @property
    def old(self) -> list[str]:
        """Context and removed lines, in order: what the file must hold."""
        return [text for tag, text in self.lines if tag != "+"]

    def new(self, found: list[str]) -> list[str]:
        """The replacement of `found` (the file's own lines matching `old`): context lines
        stay as the file has them (their trailing whitespace too), added lines come in."""
        out, k = [], 0
        for tag, text in self.lines:
            if tag == "+":
                out.append(text)
                continue
            if tag == " ":
                out.append(found[k])
            k += 1
        return out


@dataclass
class FileOp:
    kind: str  # add | delete | update
    path: str
    move_to: str = ""
    text: str = ""  # an added file's content
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path, self.move_to) if self.move_to else (self.path,)


def _header(line: str, op: FileOp | None) -> tuple[str, str] | None:
    """A file header, padding forgiven; inside an update a line led by a space is context, as
    Codex reads it (a file may hold a line that looks like a header)."""
    if op is not None and op.kind == "update" and line.startswith(" "):
        return None
    bare = line.strip()
    for kind, prefix in (("add", ADD), ("delete", DELETE), ("update", UPDATE)):
        if bare.startswith(prefix):
            return kind, bare[len(prefix) :].strip()
    return None


def _anchor(line: str) -> str:
    """The line to find after `@@ ` (its own indentation kept, as Codex keeps it)."""
    text = line[3:] if line.startswith("@@ ") else line[2:]
    return text if text.strip() else ""


def _hunk_line(hunk: Hunk, line: str, n: int) -> None:
    tag, text = (line[:1], line[1:]) if line else (" ", "")
    if tag not in " +-":
        raise ToolError(
            f"patch line {n}: {line[:80]!r} starts with neither ' ', '+' nor '-'",
            hint="every line of an update hunk is context (' '), removed ('-') or added ('+')",
        )
    hunk.lines.append((tag, text))


def parse(patch: str) -> list[FileOp]:
    """The patch's operations, or a ToolError naming the line that breaks the format."""
    lines = unwrap(patch).split("\n")
    if not lines or lines[0].strip() != BEGIN or lines[-1].strip() != END:
        raise ToolError(
            f"a patch starts with '{BEGIN}' and ends with '{END}'",
            hint="see the apply_patch description for the format",
        )
    ops = _ops(lines[1:-1])
    for op in ops:
        if not op.path:
            raise ToolError("a '*** … File:' line names no path")
        if op.kind == "update" and not op.hunks and not op.move_to:
            raise ToolError(f"the update of {op.path} has no hunks")
    if not ops:
        raise ToolError("the patch changes no file")
    return ops


def _ops(body: list[str]) -> list[FileOp]:
    """The file operations of the lines between the patch's markers."""
    ops: list[FileOp] = []
    for n, line in enumerate(body, 2):
        head = _header(line, ops[-1] if ops else None)
        if head is not None:
            ops.append(FileOp(*head))
            continue
        if not ops:
            raise ToolError(f"patch line {n}: {line[:80]!r} comes before any '*** … File:' line")
        op = ops[-1]
        if op.kind == "add":
            if not line.startswith("+"):
                raise ToolError(f"patch line {n}: an added file's lines start with '+'")
            op.text += line[1:] + "\n"
        elif op.kind == "delete":
            raise ToolError(f"patch line {n}: a deleted file takes no lines")
        elif line.startswith(MOVE) and not op.hunks and not op.move_to:
            op.move_to = line[len(MOVE) :].strip()
        elif line.startswith("@@"):
            op.hunks.append(Hunk(anchor=_anchor(line)))
        elif line.strip() == EOF_MARK:
            if not op.hunks:
                raise ToolError(f"patch line {n}: '{EOF_MARK}' outside a hunk")
            op.hunks[-1].at_end = True
        else:
            if not op.hunks:
                op.hunks.append(Hunk())
            _hunk_line(op.hunks[-1], line, n)
    return ops


def apply_hunks(name: str, text: str, hunks: list[Hunk]) -> str:
    """`text` (LF line endings) with the hunks applied in order, or a ToolError naming the
    hunk whose lines are not in the file."""
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []
    cursor = 0
    for k, h in enumerate(hunks, 1):
        if h.anchor:
            found = seek(lines, [h.anchor], cursor, False)
            if found < 0:
                raise ToolError(
                    f"{name}: hunk {k}: its @@ line {h.anchor[:80]!r} is not in the file "
                    "(after the previous hunk)",
                    hint="read the file again and copy the lines exactly",
                )
            cursor = found + 1
        # lines only added, with no @@ line to follow: at the end of the file (as Codex does)
        at_end = h.at_end or (not h.old and not h.anchor)
        at = seek(lines, h.old, cursor, at_end)
        while at < 0 and h.lines and h.lines[-1] == (" ", ""):  # a blank line before the end
            h.lines.pop()
            at = seek(lines, h.old, cursor, at_end)
        if at < 0:
            first = next((ln for ln in h.old if ln.strip()), "")
            raise ToolError(
                f"{name}: hunk {k}: its context and removed lines are not in the file as "
                f"written (from {first[:80]!r})",
                hint="read the file again and copy the lines exactly, in order",
            )
        new = h.new(lines[at : at + len(h.old)])
        lines[at : at + len(h.old)] = new
        cursor = at + len(new)
    return "\n".join(lines) + "\n" if lines else ""  # a final newline, as Codex writes
