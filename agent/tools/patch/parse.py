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

Context and removed lines must match the file line for line; trailing whitespace and CRLF are
forgiven, nothing else: no fuzzy search across unrelated lines. Hunks apply in order, each
after the previous one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


def _header(line: str) -> tuple[str, str] | None:
    for kind, prefix in (("add", ADD), ("delete", DELETE), ("update", UPDATE)):
        if line.startswith(prefix):
            return kind, line[len(prefix) :].strip()
    return None


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
    lines = patch.replace("\r\n", "\n").strip("\n").split("\n")
    if not lines or lines[0].strip() != BEGIN or lines[-1].strip() != END:
        raise ToolError(
            f"a patch starts with '{BEGIN}' and ends with '{END}'",
            hint="see the apply_patch description for the format",
        )
    ops: list[FileOp] = []
    for n, line in enumerate(lines[1:-1], 2):
        head = _header(line)
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
            op.hunks.append(Hunk(anchor=line[2:].strip()))
        elif line.strip() == EOF_MARK:
            if not op.hunks:
                raise ToolError(f"patch line {n}: '{EOF_MARK}' outside a hunk")
            op.hunks[-1].at_end = True
        else:
            if not op.hunks:
                op.hunks.append(Hunk())
            _hunk_line(op.hunks[-1], line, n)
    for op in ops:
        if not op.path:
            raise ToolError("a '*** … File:' line names no path")
        if op.kind == "update" and not op.hunks and not op.move_to:
            raise ToolError(f"the update of {op.path} has no hunks")
    if not ops:
        raise ToolError("the patch changes no file")
    return ops


def _same(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _find(lines: list[str], want: list[str], start: int, at_end: bool) -> int:
    """Where `want` matches `lines` from `start` on (trailing whitespace forgiven), or -1."""
    if not want:
        return len(lines) if at_end else start
    last = len(lines) - len(want)
    spots = [last] if at_end else range(start, last + 1)
    for i in spots:
        if i >= start and all(_same(lines[i + k], w) for k, w in enumerate(want)):
            return i
    return -1


def apply_hunks(name: str, text: str, hunks: list[Hunk]) -> str:
    """`text` (LF line endings) with the hunks applied in order, or a ToolError naming the
    hunk whose lines are not in the file."""
    ends = text.endswith("\n")
    lines = text.split("\n")[:-1] if ends else text.split("\n") if text else []
    cursor = 0
    for k, h in enumerate(hunks, 1):
        if h.anchor:
            found = next((i for i in range(cursor, len(lines)) if lines[i].strip() == h.anchor), -1)
            if found < 0:
                raise ToolError(
                    f"{name}: hunk {k}: its @@ line {h.anchor[:80]!r} is not in the file "
                    "(after the previous hunk)",
                    hint="read the file again and copy the lines exactly",
                )
            cursor = found + 1
        # lines only added, with no @@ line to follow: at the end of the file (as Codex does)
        at_end = h.at_end or (not h.old and not h.anchor)
        at = _find(lines, h.old, cursor, at_end)
        while at < 0 and h.lines and h.lines[-1] == (" ", ""):  # a blank line before the end
            h.lines.pop()
            at = _find(lines, h.old, cursor, at_end)
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
    out = "\n".join(lines)
    return out + "\n" if (ends or not text) and lines else out
