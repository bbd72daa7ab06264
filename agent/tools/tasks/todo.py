"""The `todo` tool: the model's plan for the session, with statuses and dependencies."""

from __future__ import annotations

from typing import Any, Literal

from agent.base.args import Args
from agent.base.record import Tool, ToolContext, ToolResult, error
from agent.tools.shared.common import guard
from agent.tools.tasks.todo_list import TodoError, TodoList

DESCRIPTION = (
    "Keep a task list for multi-step work; the user sees it. action: add (text, blocked_by?), "
    "update (id and any of text, status, blocked_by), delete (id), list. A task cannot start "
    "while a task in its blocked_by is not done. Mark one task in_progress before working on "
    "it and done as soon as it is finished."
)


class TodoArgs(Args):
    action: Literal["add", "update", "delete", "list"]
    id: str | int | None = None
    text: str | None = None
    status: Literal["pending", "in_progress", "done"] | None = None
    blocked_by: tuple[str | int, ...] | None = None  # None: unchanged; (): blocked by none


def todo_list(ctx: ToolContext) -> TodoList:
    """The session's TodoList, created on first use when the session did not set one up."""
    if not isinstance(ctx.todo, TodoList):
        ctx.todo = TodoList()
    return ctx.todo


@guard
async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    a = TodoArgs.parse(args)
    todo = todo_list(ctx)
    action = a.action
    item_id = str(a.id) if a.id is not None else None
    if action in ("update", "delete") and item_id is None:
        return error(f"todo {action} needs an id", can_retry=True)
    blocked = None if a.blocked_by is None else [str(b) for b in a.blocked_by]
    try:
        if action == "add":
            item = todo.add(a.text or "", blocked or (), a.status or "pending")
            head = f"Added task {item.id}."
        elif action == "update":
            assert item_id is not None
            todo.update(item_id, text=a.text, status=a.status, blocked_by=blocked)
            head = f"Updated task {item_id}."
        elif action == "delete":
            assert item_id is not None
            freed = todo.delete(item_id)
            head = f"Deleted task {item_id}." + (
                f" It no longer blocks {', '.join(freed)}." if freed else ""
            )
        else:
            head = "Tasks:"
    except TodoError as e:
        return error(str(e), can_retry=True, hint="todo list shows the current tasks")
    done = sum(i.status == "done" for i in todo.items.values())
    return ToolResult(f"{head}\n{todo.render()}", display=f"{head} {done}/{len(todo)} done")


TODO = Tool(  # it never touches the disk
    "todo", DESCRIPTION, TodoArgs.schema(), _run, read_only=True, aliases=("TodoWrite",)
)
TOOLS = (TODO,)
