"""``cupy.cuda.memory`` of the emulator."""

from .._memory import (MemoryPointer, MemoryPool, OutOfMemoryError, PinnedMemoryPool,  # noqa: F401
                       get_default_memory_pool, get_default_pinned_memory_pool)
