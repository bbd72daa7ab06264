"""The `todo` tool: the model's plan for the session, with statuses and dependencies."""

from __future__ import annotations

from typing import Any

from agent.base.record import Tool, ToolContext, ToolResult, error
from agent.tools.tasks.todo_list import TodoError, TodoList

ID = {"type": ["string", "integer"]}
DESCRIPTION = (
    "Keep a task list for multi-step work; the user sees it. action: add (text, blocked_by?), "
    "update (id and any of text, status, blocked_by), delete (id), list. A task cannot start "
    "while a task in its blocked_by is not done. Mark one task in_progress before working on "
    "it and done as soon as it is finished."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "update", "delete", "list"]},
        "id": ID,
        "text": {"type": "string"},
        "status": {"type": "string", "enum": ["pending", "in_progress", "done"]},
        "blocked_by": {"type": "array", "items": ID},
    },
    "required": ["action"],
    "additionalProperties": False,
}


def todo_list(ctx: ToolContext) -> TodoList:
    """The session's TodoList, created on first use when the session did not set one up."""
    if not isinstance(ctx.todo, TodoList):
        ctx.todo = TodoList()
    return ctx.todo


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:

    todo = todo_list(ctx)
    action = args["action"]
    item_id = str(args["id"]) if args.get("id") is not None else None
    if action in ("update", "delete") and item_id is None:
        return error(f"todo {action} needs an id", can_retry=True)
    blocked = args.get("blocked_by")
    try:
        if action == "add":
            status = args.get("status") or "pending"
            item = todo.add(str(args.get("text") or ""), blocked or (), status)
            head = f"Added task {item.id}."
        elif action == "update":
            assert item_id is not None
            fields = {k: args[k] for k in ("text", "status") if args.get(k) is not None}
            todo.update(item_id, blocked_by=blocked, **fields)
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
    "todo", DESCRIPTION, PARAMETERS, _run, read_only=True, aliases=("TodoWrite",)
)
TOOLS = (TODO,)
