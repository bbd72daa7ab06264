"""agent: a lean, model-agnostic terminal coding agent."""

__version__ = "0.1.0"
