"""The loop and what it needs, no UI: the agent loop, one turn's state, the model client with
retries and timeouts and what its failures mean, stream assembly, leaked tool-call recovery,
dispatch of tool calls, the /context report.

May import: session and everything below it.
"""
