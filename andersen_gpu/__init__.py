"""andersen-gpu: inclusion-based (Andersen) points-to analysis solved on a GPU.

>>> import andersen_gpu, constraints
>>> cs = constraints.ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])
>>> andersen_gpu.solve(cs, backend="reference").points_to(1).tolist()
[2]
"""

from .solution import Solution, SolveStats
from .solve import BACKENDS, BackendUnavailable, gpu_available, solve

__all__ = ["solve", "Solution", "SolveStats", "BACKENDS", "BackendUnavailable", "gpu_available"]
__version__ = "0.1.0"
