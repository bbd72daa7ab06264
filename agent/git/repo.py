"""Where git finds a repository's files, worked out without running git (for agent.git.safe).

Discovery follows git's setup.c: from a directory upwards, `.git` (a directory, or a file saying
`gitdir: <path>`), then the directory itself as a bare repository; a linked worktree's git
directory names its common directory in `commondir`. Relative paths in those files are resolved
as git resolves them, through the file system (`real_path`): `l/../x.git` with `l` a link is
below wherever `l` points, not next to `l`. Submodules are found both below `modules/` and as
the gitlinks of the index (an embedded repository need not be in .gitmodules for `git status`
to run git inside it).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable

from agent.git.index import BadIndex, gitlinks

MAX_BYTES = 1 << 20  # a larger config or .git file is not read (the caller asks instead)
MAX_DIRS = 200  # directories below modules/ looked at
_OID = re.compile(r"[0-9a-f]{40}")

_CACHE: dict[tuple[str, str], tuple[tuple[int, ...], object]] = {}
MISSING = object()


def cached(path: str, tag: str, load: Callable[[str], object]) -> object:
    """`load(path)`, remembered until the file's stat changes; MISSING when there is no file."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return MISSING
    sig = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)
    hit = _CACHE.get((path, tag))
    if hit and hit[0] == sig:
        return hit[1]
    if len(_CACHE) > 512:
        _CACHE.clear()
    value = load(path)
    _CACHE[(path, tag)] = (sig, value)
    return value


def discover(start: str) -> list[tuple[str, str | None]]:
    """(git dir, work tree or None) candidates from `start` upwards. Every candidate up to the
    first one git would surely take: where this check and git's differ, reading one config
    too many only asks once too often."""
    out: list[tuple[str, str | None]] = []
    d = start
    while True:
        here = at(d)
        out += here
        if here and (here[0][0] != d.rstrip("/") + "/.git" or valid_git_dir(here[0][0])):
            return out  # a `gitdir:` file: git uses it or stops ("invalid gitfile format")
        if valid_git_dir(d):
            return [*out, (d, None)]
        parent = os.path.dirname(d)
        if parent == d:
            return out
        d = parent


def at(d: str) -> list[tuple[str, str | None]]:
    """The repository of `d`'s own `.git` (a submodule's: git never looks further up)."""
    dotgit = d.rstrip("/") + "/.git"
    try:
        mode = os.stat(dotgit).st_mode
    except (OSError, ValueError):
        return []
    if stat.S_ISDIR(mode):
        return [(dotgit, d)]
    if not stat.S_ISREG(mode):
        return []
    text = small_text(dotgit) or ""
    target = text[len("gitdir: ") :].rstrip() if text.startswith("gitdir: ") else ""
    return [(real(d, target) if target else dotgit, d)]


def real(base: str, path: str) -> str:
    """`path` taken from directory `base` the way the kernel walks it: each link is followed
    before a later `..` applies (git's real_path; os.path.normpath would fold `l/..` away)."""
    return os.path.realpath(os.path.join(base, path))


def valid_git_dir(path: str) -> bool:
    """git's is_git_directory: objects/ and refs/ in the common directory, and a HEAD that
    names refs/ or an object."""
    common = common_dir(path)
    if not (
        os.path.isdir(os.path.join(common, "objects"))
        and os.path.isdir(os.path.join(common, "refs"))
    ):
        return False
    head = path + "/HEAD"
    try:
        if os.path.islink(head):
            return os.readlink(head).startswith("refs/")
    except OSError:
        return False
    return cached(head, "head", _head_ok) is True


def _head_ok(head: str) -> bool:
    text = (small_text(head) or "")[:256]
    if text.startswith("ref:"):
        return text[4:].lstrip().startswith("refs/")
    return bool(_OID.match(text))


def common_dir(gitdir: str) -> str:
    text = small_text(gitdir + "/commondir")
    if not text or not text.strip():
        return gitdir
    return real(gitdir, text.strip())


def small_text(path: str) -> str | None:
    """A regular file's text (None: absent, unreadable, not a regular file or too large; a
    FIFO named `.git/config` must not block the permission check)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return None
        with open(path, "rb") as f:
            return f.read(MAX_BYTES).decode("utf-8", "surrogateescape")
    except (OSError, ValueError):
        return None


def hooks(common: str) -> list[str] | None:
    """Hooks git would run from `<common>/hooks` (None: the directory cannot be read): every
    executable entry except the `*.sample` files `git init` installs, which git never runs."""
    found: list[str] = []
    try:
        with os.scandir(os.path.join(common, "hooks")) as entries:
            for e in entries:
                if e.name.endswith(".sample"):
                    continue
                try:
                    st = os.stat(e.path)  # a link to a program counts; a dangling one does not
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
                    found.append(e.path)
    except FileNotFoundError:
        return found
    except OSError:
        return None if os.path.isdir(os.path.join(common, "hooks")) else found
    return found


def module_dirs(top: str) -> list[str]:
    """Repositories below `modules/` (a name may hold slashes: modules/lib/x/config); their
    own nested modules/ are the caller's next step."""
    out: list[str] = []
    stack, visited = [top], 0
    while stack and visited < MAX_DIRS:
        d = stack.pop()
        visited += 1
        try:
            entries = [e.path for e in os.scandir(d) if e.is_dir()]
        except OSError:
            continue
        for p in entries:
            if any(os.path.exists(os.path.join(p, n)) for n in ("HEAD", "config")):
                out.append(p)
            else:
                stack.append(p)
    return out


def submodule_paths(gitdir: str, hash_size: int) -> list[str] | str:
    """Gitlink paths of the index and of the shared index a split index builds on; a string
    says why the index could not be read."""
    out: list[str] = []
    path = os.path.join(gitdir, "index")
    for _ in range(2):
        hit = cached(path, f"index{hash_size}", lambda p: _index(p, hash_size))
        if hit is MISSING:
            return out
        if not isinstance(hit, tuple):
            return f"{path} {hit}"
        links: list[str] = hit[0]
        shared: str = hit[1]
        out += links
        if not shared:
            return out
        path = os.path.join(gitdir, f"sharedindex.{shared}")
    return out


def _index(path: str, hash_size: int) -> tuple[list[str], str] | str:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "is not a file"
        with open(path, "rb") as f:
            return gitlinks(f.read(), hash_size)
    except (OSError, BadIndex) as e:
        return f"could not be read to find submodules ({e})"
