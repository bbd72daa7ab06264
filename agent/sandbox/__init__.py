"""The OS sandbox commands run in: the policy (which paths are writable, whether the network is
reachable), bubblewrap's command line on Linux, a Seatbelt profile on macOS, the probe that says
whether the kernel allows it, and the note a command that hit the sandbox gets.

May import: permissions (the protected paths), base, git, config.
"""
