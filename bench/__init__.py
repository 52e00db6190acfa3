"""Benchmarks of andersen-gpu: the driver (``python -m bench``), the corpus recipe, committed results.

See ``bench/README.md``. Nothing here is imported by the package itself, except through the
``andersen-gpu bench`` command, which runs :mod:`bench.driver` from a source checkout.
"""
