"""The model's own bookkeeping: todo_write (`todo`, the list itself in `todo_list`) and
exit_plan_mode (`plan`). Nothing here touches the disk.

May import: tools.shared, base; never another tool family.
"""
