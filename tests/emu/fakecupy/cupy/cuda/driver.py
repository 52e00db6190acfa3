"""``cupy.cuda.driver`` of the emulator (errors only)."""


class CUDADriverError(RuntimeError):
    pass
