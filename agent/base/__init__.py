"""The vocabulary every layer speaks: events and the Sink protocol, the tool record (what a tool
is, what its calls act on) with its context, result and the middleware signature, chat
messages, token estimates and usage, the argument-schema check.

May import: git, config.
"""
