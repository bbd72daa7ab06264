"""Session lines that are not records, said and kept before a resume changes the file.

`session.load` skips a line that does not parse (a damaged disk, an edit by hand, a torn
write): the messages on it would vanish from the resumed conversation without a word. Before
`-c`/`-r` opens the session for writing (which may end a torn last line, then appends), `check`
keeps a private copy of the file as it is, `<id>.jsonl.corrupt-<time>` beside it, and returns a
warning naming the lines and the copy. A line already in such a copy, the same bytes at the
same number, was reported before: the file is append-only, so it is not said (or copied) again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from agent.config import safefile

COPY_MARK = ".corrupt-"


def _is_record(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except ValueError:
        return False


def unreadable(data: bytes) -> dict[int, bytes]:
    """The non-blank lines (numbered from 1) that are not records, a torn last one included."""
    return {
        n: raw for n, raw in enumerate(data.split(b"\n"), 1) if raw.strip() and not _is_record(raw)
    }


def _read(path: Path) -> bytes | None:
    """The file's bytes, not through a link (a planted one would be copied from its target)."""
    try:
        return safefile.read_bytes(path.parent, path)
    except OSError:
        return None


def _reported(path: Path) -> set[tuple[int, bytes]]:
    """The unreadable lines of the copies kept by earlier runs."""
    seen: set[tuple[int, bytes]] = set()
    for copy in path.parent.glob(f"{path.name}{COPY_MARK}*"):
        data = _read(copy)
        if data is not None:
            seen.update(unreadable(data).items())
    return seen


def keep_copy(path: Path, data: bytes) -> Path | None:
    """`data` as `<name>.corrupt-<time>` beside `path`, readable by the user alone like the
    session (a whole conversation); None when it cannot be written."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        copy = path.with_name(f"{path.name}{COPY_MARK}{stamp}" + (f"-{n}" if n else ""))
        try:  # never over an earlier copy, never through a link
            if safefile.create_new(path.parent, copy, data, 0o600):
                return copy
        except OSError:
            copy.unlink(missing_ok=True)  # a partial copy is no copy
            return None
    return None


def check(path: Path) -> str:
    """The warning for lines of session file `path` that resuming it will skip, after keeping a
    copy of the file; "" when every line is a record or the lines were reported before."""
    data = _read(path)
    if not data:
        return ""
    bad = unreadable(data)
    if not bad:
        return ""
    known = _reported(path)
    new = [n for n, raw in bad.items() if (n, raw) not in known]
    if not new:
        return ""
    copy = keep_copy(path, data)
    kept = f"the original file is kept as {copy}" if copy else "no copy of it could be made"
    if len(new) == 1:
        which = f"line {new[0]} is unreadable and was skipped: what it held"
    else:
        which = f"lines {', '.join(map(str, new))} are unreadable and were skipped: what they held"
    return f"session file {path}: {which} is not in the resumed conversation; {kept}"
