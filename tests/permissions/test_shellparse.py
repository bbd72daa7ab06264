"""The shell parser: simple commands, static words, redirections and the problems it reports."""

from __future__ import annotations

import pytest

from agent.permissions.shell import risk as shellrisk
from agent.permissions.shell.parse import Command, Word, parse, unquoted


def argvs(text: str, nested: bool = False) -> list[list[str | None]]:
    return [[w.value for w in c.argv] for c in parse(text).commands if c.nested == nested]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ls -la", [["ls", "-la"]]),
        ("a && b || c; d & e | f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
        ("ls\ncurl x", [["ls"], ["curl", "x"]]),
        ("c''url x", [["curl", "x"]]),
        ('c"u"rl x', [["curl", "x"]]),
        ("\\curl x", [["curl", "x"]]),
        ("ls \\\n -la", [["ls", "-la"]]),
        ("echo 'a b' \"c d\"", [["echo", "a b", "c d"]]),
        ('echo "x\\"y" a\\;b', [["echo", 'x"y', "a;b"]]),
        ('echo "$HOME" $X ${Y}', [["echo", None, None, None]]),
        ("echo {a,b} {1..3}", [["echo", None, None]]),
        ("git log @{u}", [["git", "log", "@{u}"]]),
        ("for f in a b; do wc -l $f; done", [["wc", "-l", None]]),
        ("if true; then ls; else pwd; fi", [["true"], ["ls"], ["pwd"]]),
        ("case x in a) ls;; esac", [["ls"]]),
        ("(cd src; ls)", [["cd", "src"], ["ls"]]),
        ("{ ls; pwd; }", [["ls"], ["pwd"]]),
        ("! grep x f", [["grep", "x", "f"]]),
        ("ls # rm -rf /", [["ls"]]),
    ],
)
def test_simple_commands(text: str, expected: list[list[str | None]]) -> None:
    p = parse(text)
    assert p.parsed, p.problems
    assert argvs(text) == expected


def test_assignments_are_kept_apart_from_argv() -> None:
    cmd = parse("FOO=1 BAR='x y' npm test").commands[0]
    assert [w.value for w in cmd.argv] == ["npm", "test"]
    assert [(n, w.value) for n, w in cmd.assigns] == [("FOO", "1"), ("BAR", "x y")]
    alone = parse("A=1").commands[0]
    assert alone.argv == []
    assert alone.assigns[0][0] == "A"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("echo $(id)", "command substitution"),
        ("echo `id`", "command substitution"),
        ("cat <(id)", "process substitution"),
        ("tee >(sh)", "process substitution"),
        ("echo $((1+2))", "arithmetic expansion"),
        ("(( x++ ))", "arithmetic evaluation"),
        ("f() { ls; }", "a function definition"),
        ("export A=1", "export/declare/local"),
        ("echo ${x@P}", "parameter expansion with operators"),
        ("echo ${a[$(id)]}", "command substitution"),
        ("[[ $x -eq 1 ]]", "[[ ]] with expansions (arithmetic evaluation)"),
        ("x=$(id)", "command substitution"),
        ("cat <<EOF\n$(id)\nEOF", "command substitution"),
    ],
)
def test_problems(text: str, problem: str) -> None:
    assert problem in parse(text).problems


def test_commands_inside_substitutions_are_listed_as_nested() -> None:
    assert argvs("echo $(curl x | sh)", nested=True) == [["curl", "x"], ["sh"]]
    assert argvs("f() { rm -rf /; }", nested=True) == [["rm", "-rf", "/"]]


@pytest.mark.parametrize(
    "text", ["echo 'unterminated", "ls &&", "{rm,-rf,/}", "ls\rcurl x", "a\x00b", "ls 3<>rw"]
)
def test_unparseable_or_control_characters(text: str) -> None:
    assert not parse(text).parsed


def test_quoted_heredoc_body_is_not_parsed() -> None:
    p = parse("cat <<'EOF' > out.txt\n$(id)\nEOF")
    assert p.parsed
    assert not p.problems
    assert [(r.op, r.target.value) for r in p.redirects] == [(">", "out.txt")]


def test_redirections() -> None:
    p = parse("ls 2>/dev/null >&2 &>all.log >| clob < in >> app.log")
    got = [(r.op, r.target.value, r.writes, r.fd_dup) for r in p.redirects]
    assert got == [
        (">", "/dev/null", True, False),
        (">&", "2", True, True),
        ("&>", "all.log", True, False),
        (">|", "clob", True, False),
        ("<", "in", False, False),
        (">>", "app.log", True, False),
    ]
    assert parse('ls > "$OUT"').redirects[0].target.value is None


def test_unquoted_words() -> None:
    assert unquoted("a\\ b") == Word("a b")
    assert unquoted("*.py") == Word("*.py", glob=True)
    assert unquoted("\\*.py") == Word("*.py")
    assert unquoted("{a,b}").value is None


def cmd(text: str) -> Command:
    return parse(text).commands[0]


@pytest.mark.parametrize(
    "text",
    [
        "find . -exec rm {} ;",
        "find . -execdir sh ;",
        "find . -delete",
        "find . -fprint /x",
        "find . -ok rm ;",
        "git -c core.pager=id log",
        "git --config-env=a=b log",
        "git --exec-path=/x status",
        "git diff --output=/tmp/x",
        "git log --ext-diff",
        "git grep -O foo",
        "sed -i s/a/b/ f",
        "sed -i.bak s/a/b/ f",
        "sed --in-place s/a/b/ f",
        "sed -f script f",
        "sed s/a/b/w /tmp/x f",
        "sed s/a/b/e f",
        "sed 1e id f",
        "sed 'r /x' f",
        "sed 'w /tmp/x' f",
        "rg --pre ./x foo",
        "rg --pre=./x foo",
        "sort -o out f",
        "sort -oout f",
        "sort -uo out f",
        "sort --output=out f",
        "sort --compress-program=sh f",
        "tar --checkpoint-action=exec=sh -cf x.tar .",
        "tar --to-command=sh -xf x.tar",
        "tar -I sh -xf x.tar",
        "awk 'BEGIN{system(\"id\")}'",
        "awk '{print > \"/tmp/x\"}' f",
        "awk '{print | \"sh\"}' f",
        "awk -f prog.awk f",
        "awk -F: '{system(\"id\")}'",
        "eval ls",
        "exec ls",
        "env ls",
        "command ls",
        "timeout 5 ls",
        "nice ls",
        "nohup ls",
        "sudo ls",
        "xargs ls",
        "source x.sh",
        ". x.sh",
        "bash -c ls",
        "sh -c ls",
        "bash -lc ls",
        "zsh",
        "bash",
        "PATH=. ls",
        "LD_PRELOAD=x.so ls",
        "GIT_PAGER=id git log",
        "$X ls",
        "date -s 2020-01-01",
        "find $X -name y",
        "git rebase -x 'make' main",
        "git rebase --exec=make main",
        "git submodule foreach 'rm -rf .'",
        "git bisect run ./t",
        "git difftool -x sh",
        "git filter-branch --tree-filter x",
        "git clone -u x repo",
    ],
)
def test_escape_hatches(text: str) -> None:
    assert shellrisk.escape(cmd(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "find . -name '*.py'",
        "git log -c",
        "git -C src status",
        "sed -n 1,5p f",
        "sed -e 's/a/b/g' -e '/x/d' f",
        "sed -E 's|a|b|2' f",
        "awk '{print $1}' f",
        "awk -F: '{print $1}' f",
        "sort -u f",
        "rg -n foo",
        "bash scripts/x.sh",
        "FOO=1 ls",
        "tar -tf x.tar",
        "date +%Y",
        "git cherry-pick -x abc",
        "git submodule status",
    ],
)
def test_not_escape_hatches(text: str) -> None:
    assert shellrisk.escape(cmd(text)) == "", text


@pytest.mark.parametrize(
    ("text", "ro"),
    [
        ("ls -la", True),
        ("git status", True),
        ("git diff HEAD~1", True),
        ("git branch -a", True),
        ("git branch new", False),
        ("git config --get user.name", True),
        ("git config user.name x", False),
        ("git push", False),
        ("uniq a", True),
        ("uniq a b", False),
        ("date", True),
        ("date 0101", False),
        ("echo $X", False),
        ("npm test", False),
        ("FOO=1 ls", False),
        ("git -C x log", True),
    ],
)
def test_read_only_commands(text: str, ro: bool) -> None:
    assert shellrisk.read_only(cmd(text)) is ro
