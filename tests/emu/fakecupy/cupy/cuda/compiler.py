"""``cupy.cuda.compiler`` of the emulator."""


class CompileException(Exception):
    """A kernel source did not compile (here: g++'s diagnostics against tests/emu/simt.h)."""

    def __init__(self, msg, source=None, name=None, options=(), log_stream=None):
        self._msg, self.source, self.name, self.options = msg, source, name, options
        super().__init__(msg)

    def get_message(self) -> str:
        return self._msg


def get_cache_dir() -> str:
    """CuPy's kernel cache folder; the emulator's is where it keeps the built libraries."""
    from tests.emu import simt

    return str(simt.cache_dir())
