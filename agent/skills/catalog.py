"""Finding skills and keeping track of them in a session: the Catalog."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from agent.base import frontmatter
from agent.base.frontmatter import names_of, text_of
from agent.config.plugins import Plugin
from agent.config.trust import Trust, admits, at_home, not_applied
from agent.permissions.grants import Grant

MAX_BYTES = 200_000  # a SKILL.md larger than this is skipped
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # the Agent Skills rule: lowercase words, hyphens
MAX_NAME, MAX_DESCRIPTION = 64, 1024
LISTED_DESCRIPTION = 300  # characters of each description in the first message's list
LIST_CAP = 6_000  # characters of the whole list (~1,500 tokens); the rest is counted, not listed
FILES_SHOWN = 40  # a skill's files listed with its body


class Unlock(Protocol):
    """What a skill in use may be granted (the permission gate has these)."""

    def allow_reads(self, folder: Path) -> None: ...

    def allow_for_turn(self, grant: Grant) -> None: ...


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # its SKILL.md
    source: str  # "project", "user", "project (.claude)", "user (.claude)", "plugin NAME"
    allowed_tools: tuple[str, ...] = ()  # permission rules that hold while the skill is in use
    argument_hint: str = ""

    @property
    def folder(self) -> Path:
        return self.path.parent

    def body(self) -> str:
        """The instructions (read anew, so an edit made during the session is seen)."""
        return frontmatter.split(frontmatter.read_file(self.path, MAX_BYTES))[1]


@dataclass(frozen=True)
class Place:
    """A folder skills are looked for in, and how their source is shown."""

    folder: Path
    source: str
    project: bool


def places(root: Path, home: Path) -> tuple[Place, ...]:
    """Where skills come from, first one winning a name: the project's before the user's,
    `.agent/skills` before Claude Code's `.claude/skills` in each."""
    return (
        Place(root / ".agent" / "skills", "project", True),
        Place(root / ".claude" / "skills", "project (.claude)", True),
        Place(home / ".agent" / "skills", "user", False),
        Place(home / ".claude" / "skills", "user (.claude)", False),
    )


def plugin_places(plugins: tuple[Plugin, ...]) -> tuple[Place, ...]:
    """The plugins' skill folders, after the user's own (each plugin trusted as a unit when it
    was found: agent.config.plugins)."""
    return tuple(Place(f, f"plugin {p.name}", False) for p in plugins for f in p.skills)


def parse_skill(path: Path, source: str) -> Skill | str:
    """One SKILL.md, or what is wrong with it."""
    try:
        fields, body = frontmatter.split(frontmatter.read_file(path, MAX_BYTES))
    except OSError as e:
        return f"{path}: not loaded ({e})"
    except frontmatter.FrontMatterError as e:
        return f"{path}: front matter {e}"
    if not fields:
        return f"{path}: no front matter (a `---` block with name and description)"
    name = text_of(fields.get("name")) or path.parent.name
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        return (
            f"{path}: invalid name {name!r} (lowercase letters, digits and single hyphens, "
            f"at most {MAX_NAME} characters)"
        )
    description = " ".join(text_of(fields.get("description")).split())
    if not description:
        return f"{path}: no description (the model reads it to know when to use the skill)"
    if not body:
        return f"{path}: no instructions after the front matter"
    tools = names_of(fields.get("allowed-tools") or fields.get("allowed_tools")) or ()
    return Skill(
        name,
        description[:MAX_DESCRIPTION],
        path,
        source,
        tools,
        text_of(fields.get("argument-hint")),
    )


@dataclass
class Catalog:
    """The session's skills by name, what was wrong with the others, and which were used."""

    skills: dict[str, Skill] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    untrusted: int = 0  # project skills left out: not trusted, or changed since
    why: str = ""  # why they were left out
    used: set[str] = field(default_factory=set)
    # The permission gate, wired by the app: a skill in use may read its own folder, and do
    # what its allowed-tools name until the turn ends (never past deny rules, ask rules or
    # protected paths, which the gate applies first).
    unlock: Unlock | None = None

    def use(self, name: str, grant: bool = True) -> Skill | None:
        """The skill called `name`, now in use (`grant`: its allowed-tools hold for the rest of
        the running turn; a command passes them with the turn it sends instead); None when
        there is none."""
        skill = self.skills.get(name) or self.skills.get(name.strip().lstrip("/").lower())
        if skill is None:
            return None
        self.used.add(skill.name)
        if self.unlock is not None:
            self.unlock.allow_reads(skill.folder)
            if grant:
                origin = Grant.of_file(skill.allowed_tools, f"the skill {skill.name}", skill.path)
                self.unlock.allow_for_turn(origin)
        return skill

    def block(self) -> str:
        """The list the first message carries ('' without skills): name and description each,
        within LIST_CAP characters."""
        if not self.skills:
            return ""
        head = (
            "<skills>\nSkills available here: when a task matches one, call the skill tool with "
            "its name first and follow the instructions it returns.\n"
        )
        rows: list[str] = []
        used = len(head)
        for skill in self.skills.values():
            text = skill.description
            if len(text) > LISTED_DESCRIPTION:
                text = text[: LISTED_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
            row = f"- {skill.name}: {text}"
            if used + len(row) + 1 > LIST_CAP:
                break
            rows.append(row)
            used += len(row) + 1
        left = len(self.skills) - len(rows)
        if left:
            rows.append(f"- ({left} more: /skills lists them; the skill tool takes their names)")
        return head + "\n".join(rows) + "\n</skills>"


def discover(
    root: Path,
    home: Path | None = None,
    *,
    trusted: bool | Trust = False,
    plugins: tuple[Plugin, ...] = (),
) -> Catalog:
    """Every skill of the project (when it is trusted), of the user and of the plugins, by name
    in a fixed order; a name found twice keeps the first (see `places`) and says so."""
    home = home or Path.home()
    found: dict[str, Skill] = {}
    warnings: list[str] = []
    untrusted = 0
    home_project = at_home(root, home)  # its files are the user's own
    for place in (*places(root, home), *plugin_places(plugins)):
        if not place.folder.is_dir() or (place.project and home_project):
            continue  # none, or the project is the home directory: they are the user's
        for path in sorted(place.folder.glob("*/SKILL.md")):
            if place.project and not admits(trusted, path.parent):
                untrusted += 1  # not trusted, or changed since the user trusted it
                continue
            got = parse_skill(path, place.source)
            if isinstance(got, str):
                warnings.append(got)
            elif got.name in found:
                warnings.append(f"{path}: skill {got.name!r} is hidden by {found[got.name].path}")
            else:
                found[got.name] = got
    return Catalog(dict(sorted(found.items())), warnings, untrusted, not_applied(trusted))


def folder_listing(skill: Skill) -> list[str]:
    """The files of a skill's folder (relative, sorted; at most FILES_SHOWN), SKILL.md left out."""
    out: list[str] = []
    for path in sorted(skill.folder.rglob("*")):
        if len(out) > FILES_SHOWN:
            break
        rel = path.relative_to(skill.folder)
        if path.is_file() and rel != Path("SKILL.md") and not rel.parts[0].startswith("."):
            out.append(str(rel))
    return out
