"""The OS sandbox commands run in: the policy (which paths are writable, which stay read-only
because they run later, what may not be read, whether the network is reachable), bubblewrap's
command line and its seccomp filter on Linux, the placeholders of missing protected paths and
the lock that says when commands run (janitor), a Seatbelt profile on macOS, the probe that says
whether the kernel allows it, and the note a command that hit the sandbox gets.

May import: permissions (the protected paths), base, git, config.
"""
