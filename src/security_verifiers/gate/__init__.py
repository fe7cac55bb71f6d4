"""Regression gates: core metrics per environment, run-vs-run gating and golden baseline runs."""
