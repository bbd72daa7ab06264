"""The vocabulary every layer speaks: events and the Sink protocol, the tool record (what a tool
is, what its calls act on) with its context, result and the middleware signature, chat
messages, token estimates and usage, the argument-schema check, and `visible`: text that did not
come from the agent made safe to show on a terminal (the UI and the permission prompts use it).

May import: git, config.
"""
