"""``python3 -m tests.emu ARGS...``: the ``andersen-gpu`` command line with ``cupy`` being the
SIMT emulator's stand-in, e.g. ``python3 -m tests.emu solve examples/linked_list.acs --backend
gpu --verify reference`` (from the checkout's root)."""

import sys

from tests.emu import install

install()

from andersen_gpu.cli import console_main  # noqa: E402  (after the stand-in is in place)

sys.argv[0] = "andersen-gpu"
console_main()
