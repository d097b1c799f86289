"""`python -m agent bench`: runtime overhead per turn, turns per second, prompt tokens.

It starts its own local S3 server (moto) and a temporary SQLite database, ingests and
approves the corpus and seeds the claims; it never touches a running system. Targets are
reported as met or missed, never asserted.

Its modules: `measuring` (the turn every measurement asks, the percentile), the three
measurements `overhead`, `tokens` and `throughput`, `targets` (met or missed, and why),
`output` (the figures as text) and `command` (run_bench, the baseline read back).
"""
