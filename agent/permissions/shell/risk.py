"""Escape hatches in simple commands, and the built-in read-only commands.

`escape(cmd)` says why a simple command may never be allowed by a rule: it runs another
command (wrappers, `eval`, `bash -c`), its environment changes what runs (`PATH=`, `LD_PRELOAD=`,
`GIT_PAGER=`), or a flag turns a reading command into one that writes or executes
(`find -exec`, `git -c`, `sed -i`, `rg --pre`, `sort -o`, awk's `system()`…). `read_only(cmd)`
says whether it is one of the few commands allowed without a rule in default mode.
"""

from __future__ import annotations

import re

from agent.permissions.shell.flags import risky
from agent.permissions.shell.git_risk import git_escape, git_read_only
from agent.permissions.shell.parse import Command, words
from agent.permissions.shell.scripts import awk_escape, sed_escape

WRAPPERS = words(
    "eval exec env command builtin timeout nice ionice nohup sudo doas su xargs parallel time "
    "stdbuf chroot setsid strace ltrace watch flock script unbuffer busybox source . trap "
    "coproc fc let alias caffeinate chrt taskset runuser pkexec"
)
SHELLS = words("sh bash zsh dash ksh mksh fish csh tcsh ash yash")
_ENV_EXACT = words(
    "PATH BASH_ENV ENV PROMPT_COMMAND IFS PS4 SHELLOPTS BASHOPTS CDPATH HOME PAGER EDITOR "
    "VISUAL LESSOPEN LESSCLOSE MANPAGER BROWSER TMPDIR PERL5OPT RUBYOPT NODE_OPTIONS "
    "PYTHONSTARTUP PYTHONPATH PYTHONHOME SSH_ASKPASS SUDO_ASKPASS"
)
_ENV_PATTERN = re.compile(r"^(LD_|DYLD_|GIT_|BASH_FUNC_)|(PATH|_OPTIONS|_OPTS|PAGER|EDITOR)$")

# command -> flags (exact, "--long=value", or a short flag with its value attached/clustered)
# that write files or run programs
RISKY_FLAGS: dict[str, tuple[str, ...]] = {
    "find": (
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
    ),
    "fd": ("-x", "--exec", "-X", "--exec-batch"),
    "rg": ("--pre", "--search-zip", "-z", "--hostname-bin"),
    # --files0-from: sort reads every file named inside a file, paths no check has seen
    "sort": ("-o", "--output", "--compress-program", "--files0-from"),
    "tar": (
        "--checkpoint-action",
        "--to-command",
        "--use-compress-program",
        "-I",
        "--info-script",
        "-F",
        "--new-volume-script",
        "--rsh-command",
        "--index-file",
    ),
    "date": ("-s", "--set"),
    "file": ("-C", "--compile"),
    "tree": ("-o", "-R"),  # -R with -H writes 00Tree.html files
    "base64": ("-o", "--output"),  # BSD/macOS base64 writes its output there
}
# Commands whose flag checks need every argument to be static (a `$X` could be `-exec`); glob
# words are expanded by the caller before the checks, like the shell would.
STRICT = frozenset(RISKY_FLAGS) | {"git", "sed", "awk", "gawk", "mawk", "nawk"}

READ_ONLY = words(
    "ls cat head tail wc pwd echo printf true false which file stat du df tree grep egrep fgrep "
    "rg find sort uniq cut tr diff cmp basename dirname realpath readlink whoami id uname nl "
    "md5sum sha1sum sha256sum sha512sum od hexdump column fold fmt expand unexpand rev tac "
    "paste join comm seq sleep test [ type cd date sed awk gawk mawk nawk uptime free exit : "
    "base64 expr numfmt"
)
# Read-only commands that never open their arguments: a path among them is only printed or
# computed on (`echo /etc/passwd`, `basename ~/.ssh/id_rsa`), so it may lead anywhere.
NO_FILES = words("echo printf expr numfmt seq basename dirname true false sleep exit :")


def name_of(cmd: Command) -> str | None:
    """The command name as written (None when it is not static)."""
    return cmd.argv[0].value if cmd.argv else None


def bad_env(name: str) -> bool:
    """Assignments that change which program runs or what it loads."""
    return name in _ENV_EXACT or bool(_ENV_PATTERN.search(name))


def escape(cmd: Command) -> str:
    """Why this simple command can never match an allow rule ("" when it can)."""
    for var, _ in cmd.assigns:
        if bad_env(var):
            return f"sets {var}, which changes what runs"
    if not cmd.argv:
        return ""
    name = name_of(cmd)
    if name is None:
        return "the command name is decided at run time"
    base = name.rsplit("/", 1)[-1]
    if base in WRAPPERS:
        return f"{base} runs another command"
    args = [w.value for w in cmd.argv[1:]]
    if base in SHELLS:
        return _shell(base, args)
    if base in STRICT and any(w.value is None for w in cmd.argv[1:]):
        return f"{base} with arguments decided at run time"
    if base in RISKY_FLAGS or base == "git":
        hit = git_escape(args) if base == "git" else risky(args, RISKY_FLAGS[base], base == "find")
        if hit:
            return f"{base} {hit} writes or executes"
    if base == "sed":
        return sed_escape(args)
    if base in ("awk", "gawk", "mawk", "nawk"):
        return awk_escape(args)
    return ""


def _shell(base: str, args: list[str | None]) -> str:
    script = [a for a in args if a is not None and not a.startswith(("-", "+"))]
    flags = "".join(a[1:] for a in args if a and a.startswith("-") and not a.startswith("--"))
    if "c" in flags or "s" in flags or not script:
        return f"{base} runs commands from a string or stdin"
    return ""


def opens_nothing(cmd: Command) -> bool:
    """One of NO_FILES with every word static and no glob: its paths are only printed."""
    return name_of(cmd) in NO_FILES and all(w.literal and not w.glob for w in cmd.argv)


def shell_script(cmd: Command) -> str | None:
    """S in `bash -lc S`, `bash -c S`, `zsh -lc S`, `sh -c S` written as exactly those three
    static words (the shape Codex judges by its script), else None."""
    argv = [w.value for w in cmd.argv]
    if cmd.assigns or len(argv) != 3 or argv[0] is None or argv[2] is None:
        return None
    if argv[0].rsplit("/", 1)[-1] not in ("bash", "zsh", "sh") or argv[1] not in ("-c", "-lc"):
        return None
    return argv[2]


def read_only(cmd: Command) -> bool:
    """One of the built-in read-only commands (flag checks are done by `escape`)."""
    name = name_of(cmd)
    if name not in READ_ONLY and name != "git":
        return False
    if cmd.assigns or any(w.value is None for w in cmd.argv):
        return False  # expansions could leak environment secrets or hide paths
    args = [w.value or "" for w in cmd.argv[1:]]
    if name == "git":
        return git_read_only(args)
    if name == "uniq":
        return len([a for a in args if not a.startswith("-")]) <= 1  # 2nd operand is output
    return name not in ("date",) or not args or all(a.startswith("+") for a in args)


def path_args(cmd: Command) -> list[str]:
    """Arguments that may name files (option values after `=` and attached to -X included)."""
    out: list[str] = []
    for w in cmd.argv[1:]:
        a = w.value
        if not a:
            continue
        if a.startswith("--") and "=" in a:
            out.append(a.split("=", 1)[1])
        elif a.startswith("-") and len(a) > 2 and ("/" in a or "~" in a):
            out.append(a[2:])
        elif not a.startswith("-"):
            out.append(a)
    return out
