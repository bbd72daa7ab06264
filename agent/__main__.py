"""`python -m agent` runs the command line, then leaves without the interpreter's teardown."""

from agent.cli import run

run()
