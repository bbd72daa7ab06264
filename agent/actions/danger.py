"""The deny list of project actions (SPEC §11): commands no action may run.

`denied(argv)` looks at every program of the command line (behind wrappers too, see
actions_programs.py) with its real arguments, never at the text inside one argument: `rm -r`,
`chmod -R`, `find -delete` (or `-exec rm`) and `rsync --delete` of /, a top-level directory,
the home directory, the workspace root or a parent of any of them; `mkfs`, `dd of=/dev/…`,
writing to a disk device, shutting the machine down. It runs when an action loads and again
before each run, on the argv with the params in it, the real cwd and the real workspace root
(`rm -rf ${workspaceRoot}/${target}` with target "", ".", ".."). `denied_code` matches code a
shell or interpreter runs against patterns (`rm -rf /`, fork bombs…).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from agent.actions.programs import FIND_EXEC, base, expand, names, programs

_WHERE = "/, a top-level directory, the home directory or the workspace root"
RM = f"rm -rf of {_WHERE}"
CHMOD = f"chmod/chown -R of {_WHERE}"
FIND = f"find -delete (or -exec rm) over {_WHERE}"
RSYNC = f"rsync --delete (or --remove-source-files) over {_WHERE}"
SHUTDOWN = "shutting the machine down"
_MKFS = re.compile(r"mk(?:e2)?fs(?:\.\w+)?")
_DISK = re.compile(r"/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)\w*")
_DEV_OK = re.compile(r"/dev/(?:null|zero|stdout|stderr|tty|fd/\d+)")
_WIPES_IN_CODE = (  # code that deletes what its arguments name: `bash -c 'rm -rf "$1"' _ /`
    (RM, re.compile(r"\brm\s+(?:\S+\s+)*?(?:-[a-zA-Z]*[rR]|--recursive|--no-preserve-root)")),
    (FIND, re.compile(r"\bfind\b[^;&|\n]*?(?:\s-delete\b|\s-exec(?:dir)?\s+(?:\S*/)?rm\b)")),
    (RSYNC, re.compile(r"\brsync\b[^;&|\n]*?\s--(?:del|remove-source)")),
)
_RM_LIKE = names("rm rmdir unlink shred")
_FIND_TESTS = names("-name -iname -path -ipath -wholename -iwholename -regex -iregex")
_FIND_LOGIC = names("! -not -o -or , -prune")
_RSYNC_VALUE = names(
    "-e --rsh -f --filter --exclude --include --exclude-from --include-from --files-from -B "
    "--block-size -T --temp-dir --partial-dir --compare-dest --copy-dest --link-dest "
    "--backup-dir --suffix --chmod --chown --log-file --log-file-format --out-format "
    "--password-file -M --remote-option --rsync-path --timeout --contimeout --bwlimit "
    "--max-size --min-size --max-delete --port --address --sockopts --iconv --usermap "
    "--groupmap --checksum-choice --compress-choice --skip-compress --info --debug "
    "--modify-window --outbuf --stop-after --stop-at --write-batch --only-write-batch "
    "--read-batch --protocol --compress-level"
)


def denied(
    argv: list[str], cwd: str | None = None, code: Iterable[int] = (), workspace: str = ""
) -> str:
    """Why this command line is on the deny list ("" when it is not).

    `cwd` resolves relative paths (`../..`); `workspace` is the workspace root, which no
    action may delete (nor any parent of it); `code` are the indexes of arguments a shell or
    interpreter runs as code: a recursive `rm` (a deleting `find`, `rsync --delete`) there may
    not be given a protected path as an argument (`bash -c 'rm -rf "$1"' _ /`)."""
    words = expand(argv)[0]
    for k in programs(words):
        why = _dangerous(base(words[k]), words[k + 1 :], cwd, workspace)
        if why:
            return why
    for c in code:
        text = argv[c] if c < len(argv) else ""
        for why, rx in _WIPES_IN_CODE:
            if rx.search(text) and any(protected(a, cwd, workspace) for a in argv[c + 1 :]):
                return why
    return ""


def _dangerous(name: str, args: list[str], cwd: str | None, ws: str) -> str:
    if name == "find":
        return _find(args, cwd, ws)
    if name == "rsync":
        return _rsync(args, cwd, ws)
    opts = [a for a in args[: args.index("--") if "--" in args else len(args)] if a[:1] == "-"]
    operands = [a for a in args if a not in opts and a != "--"]
    flags = "rR" if name == "rm" else "R"  # `chmod -r` takes away read permission
    recursive = any(
        o == "--recursive" or (o[1:2] != "-" and any(c in flags for c in o)) for o in opts
    )
    if name == "rm" and "--no-preserve-root" in opts:
        return RM
    rm_like = name in ("rm", "chmod", "chown", "chgrp") and recursive
    if rm_like and any(protected(p, cwd, ws) for p in operands):
        return RM if name == "rm" else CHMOD
    if _MKFS.fullmatch(name):
        return "mkfs"
    if name == "dd" and any(
        a.startswith("of=/dev/") and not _DEV_OK.fullmatch(a[3:]) for a in args
    ):
        return "dd to a device"
    if name in ("shutdown", "reboot", "halt", "poweroff"):
        return SHUTDOWN
    if name in ("systemctl", "loginctl") and {"poweroff", "reboot", "halt", "kexec"} & set(args):
        return SHUTDOWN
    if name in ("init", "telinit") and args[:1] in (["0"], ["6"]):
        return SHUTDOWN
    writers = ("tee", "cp", "mv", "install", "shred", "wipefs", "truncate", "blkdiscard")
    if name in writers and any(_DISK.fullmatch(a) for a in operands):
        return "writing to a disk device"
    return ""


def _find(args: list[str], cwd: str | None, ws: str) -> str:
    """`find START… -delete` (or `-exec rm`) over a protected START. Only the workspace root
    itself may be searched when the expression picks files by name (`-name '*.pyc'`) with no
    `!`, `-o` or `,` that could widen it."""
    i = 0
    while i < len(args) and (args[i] in ("-H", "-L", "-P", "-D") or args[i].startswith("-O")):
        i += 2 if args[i] == "-D" else 1
    starts = []
    while i < len(args) and args[i][:1] != "-" and args[i] not in ("(", ")", "!", ","):
        starts.append(args[i])
        i += 1
    expr = args[i:]
    deletes = "-delete" in expr or any(
        a in FIND_EXEC and _runs_rm(expr[j + 1 :]) for j, a in enumerate(expr)
    )
    if not deletes:
        return ""
    for start in starts or ["."]:
        level = _level(start, cwd, ws)
        if level == 2 or (level == 1 and not _by_name(expr)):
            return FIND
    return ""


def _runs_rm(cmd: list[str]) -> bool:
    end = next((j for j, w in enumerate(cmd) if w in (";", "+")), len(cmd))
    return any(base(w) in _RM_LIKE or re.search(r"\brm\s", w) for w in cmd[:end])


def _by_name(expr: list[str]) -> bool:
    if _FIND_LOGIC & set(expr):
        return False
    values = [expr[j + 1] for j, a in enumerate(expr[:-1]) if a in _FIND_TESTS]
    return any(re.sub(r"[\W_]", "", v) for v in values)  # `*.pyc`, not `*` nor `.*`


def _rsync(args: list[str], cwd: str | None, ws: str) -> str:
    """`rsync --delete… SRC… DEST` into a protected DEST; `--remove-source-files` of one."""
    opts, operands, i = [], [], 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1 :]
            break
        if a[:1] == "-" and a != "-":
            opts.append(a)
            short_value = a[1:2] != "-" and len(a) > 2 and a[-1] in "efBTM"  # `-ave ssh`
            i += 2 if a in _RSYNC_VALUE or short_value else 1
            continue
        operands.append(a)
        i += 1
    if len(operands) < 2:
        return ""
    deletes = any(o.startswith("--del") for o in opts)  # --del, --delete, --delete-after…
    if deletes and protected(operands[-1], cwd, ws):
        return RSYNC
    if "--remove-source-files" in opts and any(protected(s, cwd, ws) for s in operands[:-1]):
        return RSYNC
    return ""


def protected(path: str, cwd: str | None, workspace: str = "") -> bool:
    """Is `path` /, a top-level directory, the home directory, the workspace root, or a
    parent of one of them?"""
    return _level(path, cwd, workspace) > 0


def _level(path: str, cwd: str | None, ws: str) -> int:
    """2: /, a top-level directory, home, a parent of home or of the workspace root; 1: the
    workspace root itself; 0: none of them (real paths and written paths both count)."""
    home = os.path.expanduser("~")
    for alias in ("~", "$HOME", "${HOME}"):  # without a shell these are names; refused anyway
        if path == alias or path.startswith(alias + "/"):
            path = home + path[len(alias) :]
    while path.endswith(("/*", "/.")) or path == "*":
        path = path[:-1] if path == "*" else path[:-2] or "/"
    if not os.path.isabs(path):
        if cwd is None:
            return 0
        path = os.path.join(cwd, path)
    homes = {os.path.normpath(home), os.path.realpath(home)}
    roots = {os.path.normpath(ws), os.path.realpath(ws)} if ws else set()
    level = 0
    for p in {os.path.normpath(path), os.path.realpath(path)}:
        under = p.rstrip("/") + "/"
        if len(Path(p).parts) <= 2 or any(h == p or h.startswith(under) for h in homes):
            return 2
        if any(r.startswith(under) for r in roots):
            return 2  # a parent of the workspace root
        if p in roots:
            level = 1
    return level


_CODE_DENY = tuple(
    (why, re.compile(rx, re.M))
    for why, rx in (
        (
            RM,
            r"\brm\s+(?:-\S+\s+)*?(?:--no-preserve-root\b|(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)"
            r"\s+(?:-\S+\s+)*['\"]?(?:/+[\w.-]*/*\*?|~/?\*?|\$\{?HOME\}?/?\*?)['\"]?"
            r"(?=$|[\s;&|)]))",
        ),
        (
            FIND,
            r"\bfind\s+(?:-[HLP]\s+)*['\"]?(?:/+|~/?|\$\{?HOME\}?/?)['\"]?\s[^;&|\n]*?"
            r"(?:\s-delete\b|\s-exec(?:dir)?\s+(?:\S*/)?rm\b)",
        ),
        (
            RSYNC,
            r"\brsync\b[^;&|\n]*?\s--del\S*[^;&|\n]*\s['\"]?(?:/+|~/?|\$\{?HOME\}?/?)['\"]?"
            r"\s*(?=$|[;&|)])",
        ),
        ("mkfs", r"\bmk(?:e2)?fs(?:\.\w+)?\b"),
        ("dd to a device", r"\bdd\b[^;&|\n]*\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b)"),
        ("a fork bomb", r":\s*\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}|\b(\w+)\s*\(\)\s*\{[^}]*\b\1\s*\|"),
        ("writing to a disk device", r">\s*/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)\w*"),
        (CHMOD, r"\bch(?:mod|own|grp)\s+(?:-\S+\s+)*-\w*R\w*\s+(?:\S+\s+)?/(?=$|\s)"),
        (
            SHUTDOWN,
            r"(?:^|[;&|(]\s*|\b(?:sudo|exec|then|do|else)\s+)(?:shutdown|reboot|halt|poweroff)\b",
        ),
    )
)


def denied_code(text: str) -> str:
    """Why code a shell or interpreter runs is on the deny list ("" when it is not)."""
    return next((why for why, rx in _CODE_DENY if rx.search(text)), "")
