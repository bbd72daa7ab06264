"""The vocabulary every layer speaks: events and the Sink protocol, the tool record (what a tool
is, what its calls act on) with its context, result and the middleware signature, chat
messages, token estimates and usage, a tool's arguments declared once (`args`: the schema the
model sees and the typed values the tool reads) and the dispatch check of them (`schema`), and
`visible`: text that did not come from the agent made safe to show on a terminal (the UI and
the permission prompts use it).

May import: git, config.
"""
