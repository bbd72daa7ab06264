"""Claude Code plugins (issue 45, item 3): found under ~/.claude/plugins/ and in settings'
`plugins`, each part at the plugin's scope; a project's wait for trust and are pinned."""

from __future__ import annotations

import json
from pathlib import Path

from plugin_files import write_plugin

from agent.config import pins
from agent.config.plugins import ROOT_VAR, Listed, find_plugins, listed_in
from agent.config.trust import Trust

CACHE = Path(".claude/plugins/cache/market/myplugin/1.2.0")


def test_an_installed_plugin_is_found_with_each_part(home: Path, project: Path) -> None:
    root = write_plugin(home / CACHE)
    write_plugin(home / ".claude/plugins/marketplaces/market/plugins/other", "other")
    found = find_plugins(project, home, [], {}, False)
    assert [p.name for p in found.found] == ["myplugin"]  # a catalogue is not installed
    (p,) = found.found
    assert (p.scope, p.version, p.root) == ("user", "1.2.0", root)
    assert p.commands == (root / "commands",) and p.skills == (root / "skills",)
    assert p.agents == (root / "agents",)
    command = p.hooks["PreToolUse"][0]["hooks"][0]["command"]
    assert f"{root}/hooks/guard.py" in command and ROOT_VAR not in command
    assert p.servers["plugdemo"]["env"]["MCP_DEMO_MARKER"] == f"{root}/started"
    assert found.user_servers({"plugdemo": p.servers["plugdemo"]}) == {"plugdemo"}
    assert found.user_servers({"plugdemo": {"command": "other"}}) == frozenset()


def test_turned_off_clashing_and_broken_plugins_are_said(home: Path, project: Path) -> None:
    write_plugin(home / CACHE)
    write_plugin(home / ".agent/plugins/again", "myplugin")
    broken = home / ".agent/plugins/broken/.claude-plugin"
    broken.mkdir(parents=True)
    (broken / "plugin.json").write_text("{nope")
    found = find_plugins(project, home, [], {}, False)
    assert [p.name for p in found.found] == ["myplugin"]
    assert any("hidden by" in s and "again" in s for s in found.skipped)
    assert any("broken" in s and "not read" in s for s in found.skipped)
    off = find_plugins(project, home, [], {"myplugin@market": False}, False)
    assert off.found == () and any("turned off by enabledPlugins" in s for s in off.skipped)


def test_a_projects_plugin_waits_for_trust_and_is_pinned(home: Path, project: Path) -> None:
    write_plugin(project / "plugins/team", "team")
    settings = project / ".agent/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"plugins": ["../plugins/team", "/elsewhere/x"]}))
    listed = listed_in(settings, json.loads(settings.read_text()), "project")
    assert listed[0] == Listed(project / "plugins/team", "project", settings)
    untrusted = find_plugins(project, home, listed, {}, False)
    assert untrusted.found == () and "waits for your trust" in untrusted.skipped[0]
    assert "outside the project" in untrusted.skipped[1]
    trusted = find_plugins(project, home, listed, {}, Trust(True, str(project)))
    assert [(p.name, p.scope) for p in trusted.found] == [("team", "project")]
    assert "plugins/team/hooks/guard.py" in pins.scan(project)  # pinned as its other files
    changed = Trust(True, str(project), frozenset({"plugins/team/hooks/guard.py"}))
    withheld = find_plugins(project, home, listed, {}, changed)
    assert withheld.found == () and "changed since you trusted it" in withheld.skipped[0]
