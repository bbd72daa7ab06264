"""Which words of a project action's command line are programs (SPEC §11).

A param may not choose a program, and the deny list looks at every program with its real
arguments, so both need to know where programs start: the command itself, what a wrapper runs
(`timeout 10 cmd`, `sudo -u me cmd`, `env A=1 cmd`, `find -exec cmd`), and what a tool's
subcommand runs (`uv run cmd`, `npx cmd`, `docker exec box cmd`, `kubectl exec pod -- cmd`,
`nix develop -c cmd`) — including options whose value picks it (`uvx --from PKG`,
`docker run --entrypoint CMD`, the image of `docker run`). `expand` splits `env -S "…"` first.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass


def names(text: str) -> frozenset[str]:
    return frozenset(text.split())


def rows(text: str) -> list[list[str]]:
    return [row.split() for row in text.split(";")]


FIND_EXEC = names("-exec -execdir -ok -okdir")
_WRAPPERS = {  # "name shorts operands longs…": the options that take a value (`-n 5`; "." for
    # none), how many operands come before the program (`timeout 10 cmd`)
    w[0]: (w[1].strip("."), frozenset(w[3:]), int(w[2]))
    for w in rows(
        "env uCS 0 --unset --chdir --split-string; doas uC 0; nice n 0 --adjustment; nohup . 0;"
        "sudo ugphCDrtUT 0 --user --group --host --prompt --chdir --role --other-user; exec a 0"
        "; setsid . 0; command . 0; time fo 0 --format --output; unbuffer . 0; busybox . 0;"
        "timeout sk 1 --signal --kill-after; stdbuf ioe 0 --input --output --error; taskset . 1"
        "; ionice cnpPu 0 --class --classdata --pid --pgid --uid; chroot . 1 --userspec --groups"
        "; chrt TPD 1 --sched-runtime --sched-period --sched-deadline; strace abeEIoOpPsSuUX 0;"
        "flock wE 1 --timeout --conflict-exit-code; ltrace aAenoOpsSuwX 0; xargs adEILnPs 0 "
        "--arg-file --delimiter --eof --replace --max-lines --max-args --max-procs"
    )
}


@dataclass(frozen=True)
class Sub:
    """How a subcommand (`uv run`, `docker exec`) names the program it runs."""

    shorts: str = ""  # short options that take a value (`-e A=1`)
    longs: frozenset[str] = frozenset()  # long options that take one (`--env A=1`)
    operands: int = 0  # words before the program (`docker exec CONTAINER cmd`)
    pickers: frozenset[str] = frozenset()  # options whose value picks the program
    mode: str = ""  # "": after the operands (or `--`); "--": only after `--`; "opt": a picker
    operands_pick: bool = False  # the operands pick it too (the image of `docker run`)


_DOCKER_RUN = names(
    "--name --network --net --mount --env --env-file --volume --publish --workdir --user "
    "--label --label-file --memory --memory-swap --cpus --cpu-shares --platform --hostname "
    "--add-host --cap-add --cap-drop --device --dns --gpus --ipc --pid --restart --runtime "
    "--security-opt --shm-size --tmpfs --ulimit --volumes-from --log-driver --log-opt "
    "--cidfile --cgroupns --health-cmd --pull --stop-signal --stop-timeout --userns --uts "
    "--link --expose --attach --detach-keys --entrypoint --group-add --init-path --isolation"
)
_DOCKER_EXEC = Sub("euw", names("--env --env-file --user --workdir --detach-keys"), 1)
_RUN = Sub(
    "evpwulmcah", _DOCKER_RUN, 1, names("--entrypoint"), operands_pick=True
)  # docker run [options] IMAGE [cmd]
_COMPOSE = Sub("euwvp", names("--env --user --workdir --index --name --volume --publish"), 1)
_UV = names(
    "--with --with-editable --with-requirements --python --package --extra --group --only-group "
    "--no-group --no-extra --env-file --directory --project --index --default-index --index-url "
    "--extra-index-url --find-links --config-file --cache-dir --color --exclude-newer "
    "--python-platform --resolution --prerelease --link-mode --refresh-package "
    "--reinstall-package --upgrade-package --no-binary-package --no-build-package "
    "--keyring-provider --index-strategy --config-setting --allow-insecure-host --from"
)
_UVX = Sub("pw", _UV, 0, names("--from"))
_NPX = Sub("pw", names("--package --workspace"), 0, names("-p --package"))
_DLX = Sub("p", names("--package"), 0, names("-p --package"))
_CONDA = Sub("np", names("--name --prefix --cwd"))
_GO = names("-o -C -tags -ldflags -gcflags -asmflags -mod -modfile -p -pkgdir -overlay -exec")
_NIX = names("--file --expr --store --override-input --inputs-from --profile")
_SUBS: dict[str, list[tuple[tuple[str, ...], Sub]]] = {}
for _key, _sub in [
    (("uv", "run"), Sub("p", _UV, 0, names("-m --module"))),
    (("uv", "tool", "run"), _UVX),
    (("uvx",), _UVX),
    (("npx",), _NPX),
    (("npm", "exec"), _NPX),
    (("npm", "x"), _NPX),
    (("pnpx",), _DLX),
    (("pnpm", "dlx"), _DLX),
    (("pnpm", "exec"), Sub("C", names("--filter --dir --workspace-concurrency"))),
    (("yarn", "dlx"), _DLX),
    (("yarn", "exec"), Sub()),
    (("bunx",), _DLX),
    (("bun", "x"), _DLX),
    (("poetry", "run"), Sub("CP", names("--directory --project"))),
    (("pipx", "run"), Sub("", names("--spec --python --index-url --pip-args"), 0, names("--spec"))),
    (("pdm", "run"), Sub("p", names("--project --venv"))),
    (("hatch", "run"), Sub()),
    (("pipenv", "run"), Sub()),
    (("rye", "run"), Sub()),
    (("pixi", "run"), Sub("e", names("--manifest-path --environment"))),
    (("conda", "run"), _CONDA),
    (("mamba", "run"), _CONDA),
    (("micromamba", "run"), _CONDA),
    (("docker", "exec"), _DOCKER_EXEC),
    (("podman", "exec"), _DOCKER_EXEC),
    (("docker", "container", "exec"), _DOCKER_EXEC),
    (("docker", "run"), _RUN),
    (("podman", "run"), _RUN),
    (("docker", "container", "run"), _RUN),
    (("docker", "compose", "exec"), _COMPOSE),
    (("docker", "compose", "run"), _COMPOSE),
    (("docker-compose", "exec"), _COMPOSE),
    (("docker-compose", "run"), _COMPOSE),
    (("podman-compose", "exec"), _COMPOSE),
    (("podman-compose", "run"), _COMPOSE),
    (("kubectl", "exec"), Sub("cnf", names("--container --namespace --context --filename"), 1)),
    (("oc", "exec"), Sub("cn", names("--container --namespace --context"), 1)),
    (("nix", "run"), Sub("f", _NIX)),  # the installable is the program
    (("nix", "develop"), Sub("f", _NIX, 0, names("-c --command"), "opt")),
    (("nix", "shell"), Sub("f", _NIX, 0, names("-c --command"), "opt")),
    (("mise", "exec"), Sub("C", names("--cd"), 0, mode="--")),
    (("mise", "x"), Sub("C", names("--cd"), 0, mode="--")),
    (("asdf", "exec"), Sub()),
    (("direnv", "exec"), Sub("", frozenset(), 1)),
    (("go", "run"), Sub("", _GO, 0, names("-exec"))),  # the package is the program
]:
    _SUBS.setdefault(_key[0], []).append((_key[1:], _sub))


def base(word: str) -> str:
    """The program name of a word: `/usr/bin/env` → `env`."""
    return os.path.basename(word)


def expand(argv: list[str]) -> tuple[list[str], list[int], set[int]]:
    """argv with each `env -S "…"` string split into the words env makes of it; for each word
    the index in argv it came from; and the indexes of the split strings."""
    words, origin, split = list(argv), list(range(len(argv))), set()
    i, in_env = 0, False
    while i < len(words):
        w = words[i]
        if in_env and w.startswith("-") and w != "--":
            found = _split_string(w, words[i + 1] if i + 1 < len(words) else None)
            if found:
                head, value, used = found
                src = origin[i + used - 1]
                split.add(src)
                try:
                    new = [*head, *shlex.split(value)]
                except ValueError:  # unbalanced quotes
                    new = [*head, *value.split()]
                words[i : i + used] = new
                origin[i : i + used] = [origin[i]] * len(head) + [src] * (len(new) - len(head))
                continue  # env reads the split words as its own arguments
            i += 2 if w in ("-u", "--unset", "-C", "--chdir") else 1
            continue
        in_env = base(w) == "env" or (in_env and "=" in w)
        i += 1
    return words, origin, split


def _split_string(opt: str, nxt: str | None) -> tuple[list[str], str, int] | None:
    """env's -S in `opt`: the options before it, the string, and how many words it used."""
    if opt in ("-S", "--split-string"):
        return None if nxt is None else ([], nxt, 2)
    if opt.startswith("--split-string="):
        return [], opt.partition("=")[2], 1
    for j, c in enumerate("" if opt.startswith("--") else opt[1:], 1):
        if c in "uC":
            return None
        if c == "S":
            head = [opt[:j]] if j > 1 else []
            if j < len(opt) - 1:
                return head, opt[j + 1 :], 1
            return None if nxt is None else (head, nxt, 2)
    return None


def programs(words: list[str]) -> list[int]:
    """Where programs start in `words`: the command, what wrappers, subcommands such as
    `uv run` or `docker exec C` and `find -exec` run, and the words that pick one."""
    todo, out = [0], set()
    while todo:
        k = todo.pop()
        if k >= len(words) or k in out:
            continue
        out.add(k)
        name = base(words[k])
        if name == "find":
            todo += [j + 1 for j in range(k + 1, len(words)) if words[j] in FIND_EXEC]
        elif name in _WRAPPERS:
            todo.append(_program_after(words, k + 1, name))
        else:
            todo += _sub_programs(words, k, name)
    return sorted(out)


def _program_after(words: list[str], i: int, name: str) -> int:
    """The index of the program a wrapper runs: past its options, `NAME=value`s and operands."""
    shorts, longs, operands = _WRAPPERS[name]
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        a = words[i]
        i += 1
        if a == "--":
            break
        if a.startswith("--"):
            i += 1 if a in longs else 0  # `--signal KILL`; `--signal=KILL` is one word
            continue
        j = next((j for j, c in enumerate(a[1:], 1) if c in shorts), 0)
        i += 1 if j == len(a) - 1 else 0  # `-n 5`; `-n5` is one word
    while name == "env" and i < len(words) and re.match(r"[^=-][^=]*=", words[i]):
        i += 1
    return i + operands


def _sub_programs(words: list[str], k: int, name: str) -> list[int]:
    """What `uv run`, `npx`, `docker exec C`… at `k` run, and the words that pick it."""
    for sub, spec in _SUBS.get(name, ()):
        i = _subcommand(words, k + 1, sub)
        if i is not None:
            return _picked(words, i, spec)
    return []


def _subcommand(words: list[str], i: int, sub: tuple[str, ...]) -> int | None:
    """The index after `sub` (`run`, `compose exec`), past global options; None if absent."""
    for w in sub:
        skipped = False
        while i < len(words) and words[i] != w:
            if words[i].startswith("-") and words[i] != "--":
                skipped = "=" not in words[i]  # its value may follow: `docker -H h run`
            elif skipped:
                skipped = False
            else:
                return None
            i += 1
        if i >= len(words):
            return None
        i += 1
    return i


def _picked(words: list[str], i: int, spec: Sub) -> list[int]:
    out: list[int] = []
    n, seen = len(words), 0
    while i < n:
        a = words[i]
        if a == "--":
            return [*out, i + 1] if spec.mode != "opt" else out
        if a.startswith("-") and a != "-":
            opt, inline = (a.partition("=")[0], "=" in a) if a[1] == "-" else (a, False)
            short = a[1:2] != "-" and len(a) == 2 and a[1] in spec.shorts
            takes = opt in spec.longs or opt in spec.pickers or short
            if opt in spec.pickers:
                out.append(i if inline else i + 1)
                if spec.mode == "opt":
                    return out
            i += 2 if takes and not inline else 1
            continue
        if spec.mode == "":
            if seen >= spec.operands:
                return [*out, i]
            if spec.operands_pick:
                out.append(i)
        seen += 1
        i += 1
    return out
