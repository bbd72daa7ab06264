"""Git as the agent itself uses it: a repository's own config read without running git (is it
safe to run a reading git command there?), the environment that neutralises what it could run,
the working-tree diff for /diff and /review.

May import: config.
"""
