"""Option tables of the search and compare commands agent/shellreach.py judges, and a parser
that reads arguments the way each program does (values, clusters like `-rA3`, abbreviated long
options where getopt_long or git's parse-options take them)."""

from __future__ import annotations

from dataclasses import dataclass

GREPS = frozenset({"grep", "egrep", "fgrep"})


@dataclass(frozen=True)
class Syntax:
    """A program's options. `longs` maps a long name to "=" (takes a value), "?" (a value only
    after `=`) or "" (none); `abbrev`: a unique prefix names a long option (getopt_long)."""

    values: str  # short letters that take a value: the rest of the cluster, else the next word
    longs: dict[str, str]
    abbrev: bool
    optional: str = ""  # short letters whose value can only be attached (`-Oless`)


def _longs(spec: str) -> dict[str, str]:
    return {w.rstrip("=?"): w[-1] if w[-1] in "=?" else "" for w in spec.split()}


GREP_SYNTAX = Syntax(
    "ABCDdefm",
    _longs(
        "after-context= before-context= binary-files= context= color? colour? devices= "
        "directories= exclude= exclude-from= exclude-dir= file= group-separator= include= "
        "label= max-count= regexp= basic-regexp extended-regexp fixed-regexp fixed-strings "
        "perl-regexp byte-offset count dereference-recursive files-with-matches "
        "files-without-match help ignore-case no-ignore-case initial-tab line-buffered "
        "line-number line-regexp no-filename no-group-separator no-messages null null-data "
        "only-matching quiet recursive invert-match silent text binary unix-byte-offsets "
        "version with-filename word-regexp debug"
    ),
    abbrev=True,
)
RG_SYNTAX = Syntax(  # ripgrep takes long options only spelled out
    "ABCEMTdefgjmrt",
    _longs(
        "after-context= before-context= color= colors= context= context-separator= "
        "dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= "
        "file= generate= glob= hostname-bin= hyperlink-format= iglob= ignore-file= "
        "max-columns= max-count= max-depth= maxdepth= max-filesize= path-separator= pre= "
        "pre-glob= regex-size-limit= regexp= replace= sort= sortr= threads= type= type-add= "
        "type-clear= type-not= files type-list hidden follow unrestricted "
        "glob-case-insensitive no-glob-case-insensitive"
    ),
    abbrev=False,
)
GIT_GREP_SYNTAX = Syntax(  # git's parse-options takes a unique prefix too
    "ABCefm",
    _longs(
        "after-context= before-context= context= max-count= max-depth= threads= color? "
        "open-files-in-pager? cached no-index untracked exclude-standard no-exclude-standard "
        "recurse-submodules invert-match ignore-case word-regexp text textconv no-textconv "
        "recursive no-recursive extended-regexp basic-regexp fixed-strings perl-regexp "
        "line-number column full-name files-with-matches name-only files-without-match null "
        "only-matching count no-color break heading show-function function-context quiet and "
        "or not all-match"
    ),
    abbrev=True,
    optional="O",
)
DIFF_SYNTAX = Syntax(  # GNU diff: getopt_long; digits are options (`-5`: context lines)
    "CDFILSUWxX",
    _longs(
        "changed-group-format= exclude= exclude-from= from-file= horizon-lines= ifdef= "
        "ignore-matching-lines= label= line-format= new-group-format= new-line-format= "
        "old-group-format= old-line-format= palette= show-function-line= starting-file= "
        "tabsize= to-file= unchanged-group-format= unchanged-line-format= width= color? "
        "context? unified? binary brief ed expand-tabs forward-ed help ignore-all-space "
        "ignore-blank-lines ignore-case ignore-file-name-case ignore-space-change "
        "ignore-tab-expansion ignore-trailing-space inhibit-hunk-merge initial-tab "
        "left-column minimal new-file no-dereference no-ignore-file-name-case normal "
        "paginate rcs recursive report-identical-files sdiff-merge-assist show-c-function "
        "side-by-side speed-large-files strip-trailing-cr suppress-blank-empty "
        "suppress-common-lines text unidirectional-new-file version"
    ),
    abbrev=True,
)
GIT_DIFF_SYNTAX = Syntax(  # `git diff --no-index`, as git 2.39 reads it
    "GIOSl",
    _longs(
        "anchored= color-moved-ws= diff-algorithm= diff-filter= dst-prefix= find-object= "
        "ignore-matching-lines= inter-hunk-context= line-prefix= output= "
        "output-indicator-context= output-indicator-new= output-indicator-old= rotate-to= "
        "skip-to= src-prefix= stat-count= stat-graph-width= stat-name-width= stat-width= "
        "word-diff-regex= ws-error-highlight= abbrev? break-rewrites? color? color-moved? "
        "color-words? dirstat? find-copies? find-renames? ignore-submodules? relative? "
        "stat? submodule? unified? word-diff? binary compact-summary cumulative "
        "dirstat-by-file? exit-code ext-diff find-copies-harder full-index function-context "
        "histogram ignore-all-space ignore-blank-lines ignore-cr-at-eol ignore-space-at-eol "
        "ignore-space-change indent-heuristic irreversible-delete minimal name-only "
        "name-status no-color no-ext-diff no-index no-indent-heuristic no-patch no-prefix "
        "no-relative no-renames no-textconv numstat patch patch-with-raw patch-with-stat "
        "patience quiet raw shortstat summary text textconv"
    ),
    abbrev=True,
    optional="BCMUX",
)
Options = list[tuple[str, str]]  # (letter or long name spelled out, value) in order


def parse_options(args: list[str], syn: Syntax) -> tuple[Options, list[str]]:
    """(options, operands), options anywhere until `--` (GNU style). An ambiguous long prefix
    counts as every option it may name (the program refuses it; erring towards asking)."""
    opts: Options = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            operands += args[i:]
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            names = _long(name, syn)
            if not eq and names and {syn.longs[n] for n in names} == {"="} and i < len(args):
                value, i = args[i], i + 1
            opts += [(n, value) for n in names]
        elif a.startswith("-") and a != "-":
            for k, c in enumerate(a[1:], 2):
                if c in syn.values or c in syn.optional:
                    value = a[k:]
                    if not value and c in syn.values and i < len(args):
                        value, i = args[i], i + 1
                    opts.append((c, value))
                    break
                opts.append((c, ""))
        else:
            operands.append(a)
    return opts, operands


def _long(name: str, syn: Syntax) -> list[str]:
    """The long options `--name` may spell (none when the program does not know it)."""
    if not name or name in syn.longs:
        return [name] if name else []
    return [n for n in syn.longs if n.startswith(name)] if syn.abbrev else []
