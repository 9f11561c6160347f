"""Benchmarks behind ``venus bench``: each prints a table and writes stable JSON keys.

See ``BENCHMARKS.md`` in the shared docs for the keys each one must report.
"""
