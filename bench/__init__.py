"""Benchmarks: `python -m bench` prints figures against budgets and same-run baselines."""
