"""The front end: the constraint model, dump readers/writers, the LLVM extractor.

Never imports :mod:`andersen_gpu`.
"""

from .errors import InputError
from .model import EDGE_KINDS, ConstraintSet, NodeKind

__all__ = ["ConstraintSet", "NodeKind", "InputError", "EDGE_KINDS"]
