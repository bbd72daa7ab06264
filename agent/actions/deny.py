"""Where a param may not go in a project action's command line (SPEC §11): into code a program
runs, or into the choice of the program.

Actions run without a shell, yet a program may still run an argument as code: `bash -c`, and so
`timeout 10 bash -c`, `uv run python -c`, `env -S "…"`, `git -c alias.x=!…`, `ssh host cmd` (a
remote shell), `make VAR=…` (expanded in recipes), `watch`, `rsync -e`… `code_spots` finds them,
looking for shells and interpreters anywhere in argv; `programs` (actions_programs.py) finds
what the command, wrappers (`timeout`, `sudo`, `env`, `find -exec`…) and subcommands (`uv run`,
`npx`, `docker exec C`…) run.
"""

from __future__ import annotations

import re

from agent.actions.programs import base, expand, names, programs, rows

_INTERPRETER = re.compile(
    r"(?:(?:ba|da|z|k|c|tc|fi|mk|a|y|ok|x?on)?sh|python|pypy|ipython|node|nodejs|deno|bun|perl"
    r"|ruby|php|lua|luajit|tclsh|wish|expect|osascript|Rscript|julia|guile|racket|sbcl|elvish"
    r"|nu)[\d.]*(?:\.exe)?"
)
_WHOLE = re.compile(r"pwsh|powershell|cmd\.exe|su|sg|rsh|parallel|tmux")  # all of it is code
_PROGRAM_FIRST = re.compile(r"[gmn]?awk|g?sed")  # the first operand is the program
_CODE_SHORT = frozenset("ceEpr")  # -c/-e/-E/-p/-r take code (or a library: ruby -r, node -r)
_CODE_LONG = names("--eval --print --command --exec --execute --require --import --expression")
_OPT_VALUE = names("-o +o -O +O -W -X --rcfile --init-file")
_INERT = names(  # programs that never run their arguments: `grep -r awk ${dir}` is fine
    "grep egrep fgrep echo printf cat head tail wc ls cp mv rm mkdir rmdir touch ln stat du "
    "uniq cut tr basename dirname realpath readlink true false test"
)
_MAKE = names("make gmake bmake remake")
_CODE_OPTS = {  # "programs: options whose value the program runs as code or as a command"
    name: frozenset(row[row.index(":") + 1 :])
    for row in rows(
        "runuser script flock : -c --command --session-command; xterm : -e; rg : --pre;"
        "rsync : -e --rsh --rsync-path; scp sftp : -o -F -S -D; sort : --compress-program;"
        "gdb : -ex --ex -eval-command --eval-command -iex -x --command; zip : -TT --unzip-command"
        "; vim vi nvim ex view : -c --cmd -S +; emacs : --eval -eval --execute -l --load;"
        "make gmake bmake remake : -E --eval; tar : --to-command --checkpoint-action -I -F "
        "--use-compress-program --rsh-command --info-script --new-volume-script;"
        "nix-shell : --run --command"
    )
    for name in row[: row.index(":")]
}
_TAIL = {  # run their command words in a shell: (options with a value, code ones, operands)
    "ssh": ("BbcDEeFIiJLlmOoPpQRSWw", "oF", 1, "ssh runs the command words in a remote shell"),
    "watch": ("nq", "", 0, "watch runs its command words with sh -c"),
}
_GIT_CODE = names(
    "--exec --extcmd --upload-pack --receive-pack --exec-path --config-env --tree-filter "
    "--index-filter --env-filter --msg-filter --commit-filter --tag-name-filter --parent-filter"
)
_GIT_SAFE = ("user.", "color.", "i18n.", "init.")  # config keys that never run anything
_GIT_WHY = "git can run it as a command (-c alias.x=!…, core.sshCommand, --exec, foreach…)"
_MAKE_WHY = "make reads VAR=value and expands it in recipes, which a shell runs"


def code_spots(argv: list[str]) -> dict[int, str]:
    """The arguments a program in argv would run as code, each with why (index → why): after
    -c/-e/--eval… of a shell or interpreter anywhere in argv, awk and sed programs, `env -S`,
    `git -c`, ssh's command, make's VAR=value, `rsync -e`… Not a script's own arguments (`bash
    -c 'echo "$1"' _ ${msg}`): those are data."""
    words, origin, split = expand(argv)
    spots = dict.fromkeys(split, "env -S splits it into a command line")
    last = programs(words)[-1]
    for k in reversed(range(last if base(words[last]) in _INERT else len(words))):
        for j, why in _spots(base(words[k]), words, k).items():
            spots.setdefault(origin[j], why)
    return spots


def _spots(name: str, words: list[str], k: int) -> dict[int, str]:
    n = len(words)
    if _INTERPRETER.fullmatch(name):
        return _interpreter(name, words, k)
    if _WHOLE.fullmatch(name):
        return dict.fromkeys(range(k + 1, n), f"{name} runs its arguments as a command")
    if _PROGRAM_FIRST.fullmatch(name):
        return dict.fromkeys(_program_operand(name, words, k + 1), f"{name} runs its program")
    if name == "git":
        return _git(words, k)
    if name in _TAIL:
        return _tail(words, k, name)
    out: dict[int, str] = {}
    opts = _CODE_OPTS.get(name, frozenset())
    for j in range(k + 1, n):
        how = _code_option(words[j], opts)
        if how == 1 and j + 1 < n:
            out[j + 1] = f"{name} {words[j]} runs it as code"
        elif how == 2:
            out[j] = f"{name} runs this option's value as code"
        elif name in _MAKE and "=" in words[j] and not words[j].startswith("-"):
            out[j] = _MAKE_WHY
    return out


def _interpreter(name: str, words: list[str], k: int) -> dict[int, str]:
    """A shell or interpreter's options up to its script: -c/-e… take code, -m a module."""
    code, out, i = f"{name} runs it as code", {}, k + 1
    while i < len(words):
        a, more = words[i], i + 1 < len(words)
        if a == "eval" and name.startswith(("deno", "bun")) and more:  # `deno eval CODE`
            out[i + 1] = code
        if a in ("-", "--") or not a.startswith(("-", "+")):
            break  # the script (or stdin): what follows is its arguments
        out[i] = f"{name} reads its options as code or modules"
        if a in ("-m", "-M"):
            if more:
                out[i + 1] = f"{name} {a} chooses the module it runs"
            break
        takes = a.lower() in _CODE_LONG or (a[1:2] != "-" and not _CODE_SHORT.isdisjoint(a[1:]))
        if takes and more:
            out[i + 1] = code
        i += 2 if takes or a in _OPT_VALUE else 1
    return out


def _program_operand(name: str, words: list[str], i: int) -> list[int]:
    """awk/sed: their options, the `-e` scripts, else the first operand (not with `-f file`)."""
    awk, code, script = "awk" in name, list[int](), False
    while i < len(words) and words[i].startswith("-") and words[i] not in ("-", "--"):
        a = words[i]
        if a in ("-f", "--file"):
            return code
        code.append(i)
        if a in ("-v", "-F", "-l", "-e", "--expression", "--source", "-i", "--include", "--load"):
            if a in ("-i", "-l") and not awk:  # sed -i is in place; -l a line length
                i += 1 if a == "-i" else 2
                continue
            if a not in ("-v", "-F") and i + 1 < len(words):
                code.append(i + 1)
                script = script or a in ("-e", "--expression", "--source")
            i += 2
        else:
            i += 1
    i += 1 if i < len(words) and words[i] == "--" else 0
    return code if script or i >= len(words) else [*code, i]


def _git(words: list[str], k: int) -> dict[int, str]:
    """git -c and config values (not user.*…), --exec…, rebase -x, submodule foreach, bisect run."""
    out, i, n = {}, k + 1, len(words)
    while i < n and words[i].startswith("-"):
        if words[i] == "-c" and i + 1 < n:
            if not words[i + 1].lower().startswith(_GIT_SAFE):
                out[i + 1] = _GIT_WHY
            i += 1
        i += 2 if words[i] in ("-C", "--git-dir", "--work-tree", "--namespace") else 1
    sub = words[i] if i < n else ""
    key = next((j for j in range(i + 1, n) if words[j][:1] != "-"), n)
    if sub == "config" and key < n and not words[key].lower().startswith(_GIT_SAFE):
        out.update(dict.fromkeys(range(key, n), _GIT_WHY))  # `git config alias.x '!…'`
    for j in range(k + 1, n):
        a = words[j]
        if (a in _GIT_CODE or (a == "-x" and sub in ("rebase", "difftool"))) and j + 1 < n:
            out[j + 1] = _GIT_WHY
        elif a.partition("=")[0] in _GIT_CODE:
            out[j] = _GIT_WHY
        elif j > i and (sub, a) in (("submodule", "foreach"), ("bisect", "run")):
            out.update(dict.fromkeys(range(j + 1, n), _GIT_WHY))
    return out


def _tail(words: list[str], k: int, name: str) -> dict[int, str]:
    """ssh/watch: option words, the values of code options and every word of the command."""
    values, code, operands, why = _TAIL[name]
    out, i, n = {}, k + 1, len(words)
    while i < n and words[i].startswith("-") and words[i] != "-":
        a = words[i]
        i += 1
        if a == "--":
            break
        out[i - 1] = why  # -oProxyCommand=…
        j = next((j for j, c in enumerate("" if a[1] == "-" else a[1:], 1) if c in values), 0)
        if j and j == len(a) - 1 and i < n:
            if a[j] in code:
                out[i] = why
            i += 1
    out.update(dict.fromkeys(range(i + operands, n), why))
    return out


def _code_option(a: str, opts: frozenset[str]) -> int:
    """0: `a` is none of `opts`; 1: the next word is its value; 2: `a` holds the value."""
    for o in opts:
        if a == o:
            return 1
        if o.startswith("--"):
            if a.startswith(o + "="):
                return 2
        elif len(o) == 2 and o[0] == "-" and a[:1] == "-" and a[1:2] != "-" and o[1] in a:
            return 1 if a.endswith(o[1]) else 2  # in a cluster: `rsync -ave ssh`, `-essh`
        elif a.startswith(o):
            return 2  # -exCMD, +CMD
    return 0


def make_assignments(argv: list[str]) -> list[int]:
    """Indexes of the words make reads as VAR=value (a param must not turn a target into one)."""
    k = next((k for k, w in enumerate(argv) if base(w) in _MAKE), len(argv))
    return [j for j in range(k + 1, len(argv)) if "=" in argv[j] and argv[j][:1] != "-"]
