"""``python -m bench``: the benchmark driver (:mod:`bench.driver`)."""

import sys

from bench.driver import main

sys.exit(main())
