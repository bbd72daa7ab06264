"""The one error configuration raises."""

from __future__ import annotations


class ConfigError(Exception):
    """Bad usage or configuration: the program stops with exit code 2 and this message."""
