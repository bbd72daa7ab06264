"""`python -m agent` runs the command line."""

from agent.cli import main

raise SystemExit(main())
