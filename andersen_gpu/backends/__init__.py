"""Solver backends. Each module exposes ``solve(cs, **options) -> Solution``."""
