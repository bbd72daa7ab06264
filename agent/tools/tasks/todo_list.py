"""The session's task list (SPEC §4 `todo`): items with a status and dependencies.

Rules kept on every change: a task cannot start (or be done) while one of its blockers is not
done; blockers must exist; no dependency cycles; deleting a task removes it from the blockers of
the others. Reverse links (`blocks`) are derived from `blocked_by`, so they can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

STATUSES = ("pending", "in_progress", "done")
MARKS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}


class TodoError(Exception):
    """A change that would break the list's rules; the message says which and why."""


@dataclass
class Item:
    id: str
    text: str
    status: str = "pending"
    blocked_by: list[str] = field(default_factory=list)


class TodoList:
    """Ordered items; `on_change` gets the new snapshot after every successful change."""

    def __init__(self, on_change: Callable[[list[dict[str, Any]]], None] | None = None) -> None:
        self.items: dict[str, Item] = {}
        self.next_id = 1
        self.on_change = on_change

    def __len__(self) -> int:
        return len(self.items)

    def get(self, item_id: str) -> Item:
        item = self.items.get(str(item_id))
        if item is None:
            known = ", ".join(self.items) or "none"
            raise TodoError(f"no task {item_id!r} (tasks: {known})")
        return item

    def add(self, text: str, blocked_by: Iterable[str] = (), status: str = "pending") -> Item:
        if not text.strip():
            raise TodoError("a task needs a text")
        item = Item(str(self.next_id), text.strip())
        self._set_blockers(item, [str(b) for b in blocked_by])
        self._set_status(item, status)
        self.items[item.id] = item
        self.next_id += 1
        self._changed()
        return item

    def update(
        self,
        item_id: str,
        *,
        text: str | None = None,
        status: str | None = None,
        blocked_by: Iterable[str] | None = None,
    ) -> Item:
        """Change text, blockers and/or status; nothing changes if any part is refused."""
        item = self.get(item_id)
        before = (item.text, item.status, list(item.blocked_by))
        try:
            if blocked_by is not None:
                self._set_blockers(item, [str(b) for b in blocked_by])
            if status is not None:
                self._set_status(item, status)
            if text is not None:
                if not text.strip():
                    raise TodoError("a task needs a text")
                item.text = text.strip()
        except TodoError:
            item.text, item.status, item.blocked_by = before
            raise
        self._changed()
        return item

    def delete(self, item_id: str) -> list[str]:
        """Remove a task; returns the tasks it was removed from as a blocker."""
        item = self.get(item_id)
        del self.items[item.id]
        freed = []
        for other in self.items.values():
            if item.id in other.blocked_by:
                other.blocked_by.remove(item.id)
                freed.append(other.id)
        self._changed()
        return freed

    def clear(self) -> None:
        self.items.clear()
        self.next_id = 1
        self._changed()

    def blocks(self, item_id: str) -> list[str]:
        """The tasks waiting for this one (the reverse of `blocked_by`)."""
        return [o.id for o in self.items.values() if item_id in o.blocked_by]

    def open_blockers(self, item: Item) -> list[Item]:
        return [self.items[b] for b in item.blocked_by if self.items[b].status != "done"]

    def _set_status(self, item: Item, status: str) -> None:
        if status not in STATUSES:
            raise TodoError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
        if status != "pending":
            waiting = self.open_blockers(item)
            if waiting:
                names = ", ".join(f"{b.id} ({b.text!r}, {b.status})" for b in waiting)
                verb = "start" if status == "in_progress" else "finish"
                raise TodoError(
                    f"cannot {verb} task {item.id} ({item.text!r}): blocked by {names}; "
                    "finish those first or change blocked_by"
                )
        if item.status == "done" and status != "done":
            started = [i for i in self.items.values() if item.id in i.blocked_by]
            started = [i for i in started if i.status != "pending"]
            if started:  # they were started on the strength of this one being done
                names = ", ".join(f"{i.id} ({i.text!r}, {i.status})" for i in started)
                raise TodoError(
                    f"cannot reopen task {item.id} ({item.text!r}): {names} depend on it and "
                    "already started; set them back to pending first"
                )
        item.status = status

    def _set_blockers(self, item: Item, blockers: list[str]) -> None:
        blockers = list(dict.fromkeys(blockers))
        missing = [b for b in blockers if b not in self.items and b != item.id]
        if missing:
            raise TodoError(f"blocked_by names unknown task(s): {', '.join(missing)}")
        for b in blockers:
            path = [b] if b == item.id else self._path(b, item.id)
            if path:
                chain = " → ".join([item.id, *path])
                raise TodoError(f"refused: that would make a dependency cycle ({chain})")
        item.blocked_by = blockers
        if item.status != "pending":
            self._set_status(item, item.status)  # a started task may not gain open blockers

    def _path(self, start: str, goal: str) -> list[str]:
        """A blocked_by chain from `start` to `goal` ([] when there is none)."""
        stack: list[tuple[str, list[str]]] = [(start, [start])]
        seen: set[str] = set()
        while stack:
            node, path = stack.pop()
            if node == goal:
                return path
            if node in seen or node not in self.items:
                continue
            seen.add(node)
            stack += [(b, [*path, b]) for b in self.items[node].blocked_by]
        return []

    def snapshot(self) -> list[dict[str, Any]]:
        """The list as plain data (JSON output, the session record)."""
        return [
            {
                "id": i.id,
                "text": i.text,
                "status": i.status,
                "blocked_by": list(i.blocked_by),
                "blocks": self.blocks(i.id),
            }
            for i in self.items.values()
        ]

    def load(self, items: list[dict[str, Any]]) -> None:
        """Restore a snapshot (resume) without announcing it as a change."""
        self.items = {
            str(d["id"]): Item(
                str(d["id"]),
                str(d.get("text", "")),
                str(d.get("status", "pending")),
                [str(b) for b in d.get("blocked_by", [])],
            )
            for d in items
            if isinstance(d, dict) and "id" in d
        }
        for item in self.items.values():  # a hand-edited session must not break the list
            item.blocked_by = [b for b in item.blocked_by if b in self.items and b != item.id]
        numeric = [int(i) for i in self.items if i.isdigit()]
        self.next_id = max(numeric, default=0) + 1

    def render(self) -> str:
        """One line per task: mark, id, text, and what it waits for."""
        if not self.items:
            return "No tasks."
        lines = []
        for i in self.items.values():
            extra = ""
            waiting = self.open_blockers(i)
            if waiting:
                extra = f"  (blocked by {', '.join(b.id for b in waiting)})"
            lines.append(f"{MARKS[i.status]} {i.id}. {i.text}{extra}")
        done = sum(i.status == "done" for i in self.items.values())
        lines.append(f"{done}/{len(self.items)} done")
        return "\n".join(lines)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.snapshot())


def last_saved(records: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The todo list of a stored session: its last `todo` record (None when there is none)."""
    for rec in reversed(records):
        if rec.get("t") == "todo" and isinstance(rec.get("items"), list):
            return list(rec["items"])
    return None
