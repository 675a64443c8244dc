"""piperik: every closed-form inverse-kinematics solution of spherical-wrist arms, in microseconds.

>>> import numpy as np, piperik
>>> arm = piperik.Piper()                 # AgileX PiPER, firmware >= S-V1.6-3 joint zeros
                                          # (also piperik.Nero(), piperik.Iiwa14(): 7-DOF;
                                          # piperik.Arm6.from_opw(...): any OPW-class 6R arm)
>>> T = arm.fk([0.2, 1.0, -1.2, 0.1, 0.5, 0.0])
>>> Q = arm.ik_all(T)                      # (k, 6): every exact solution, k <= 8
>>> q = arm.ik(T, q_current=np.zeros(6))   # the in-limit solution nearest q_current

Units: metres and radians throughout; helpers convert to and from the PiPER's integer units
(0.001 mm, 0.001 deg). Poses are 4x4 homogeneous transforms (or objects with ``.homogeneous``,
such as ``pinocchio.SE3``).
"""
from ._core import NoSolutionError, __version__
from .poses import (
    pose_from_piper_units,
    pose_from_xyz_rpy,
    pose_to_piper_units,
    pose_to_xyz_rpy,
    q_from_mdeg,
    q_to_mdeg,
)
from .urdf import from_urdf
from .robots import (Arm6, Arm7, BatchResult, Iiwa14, Nero, PathResult, Piper, SelectOptions, Selection, Solution,
                     tool_matrix)

__all__ = [
    "Arm6",
    "Arm7",
    "BatchResult",
    "Iiwa14",
    "Nero",
    "NoSolutionError",
    "PathResult",
    "Piper",
    "SelectOptions",
    "Selection",
    "Solution",
    "__version__",
    "from_urdf",
    "get_include",
    "pose_from_piper_units",
    "pose_from_xyz_rpy",
    "pose_to_piper_units",
    "pose_to_xyz_rpy",
    "q_from_mdeg",
    "q_to_mdeg",
    "tool_matrix",
]


def get_include() -> str:
    """Directory of the C core's public headers (``piperik/*.h``), for extensions that call the
    compiled core: ``include_dirs=[piperik.get_include()]`` with ``from piperik.ccore cimport *``
    (Cython) or ``PyCapsule_Import("piperik._core._C_API")`` (C, see ``piperik/pik_capi.h``)."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    shipped = here / "include"  # the wheel's copy (setup.py's build_py)
    if (shipped / "piperik" / "pik_capi.h").is_file():
        return str(shipped)
    source = here.parent / "csrc" / "include"  # an editable install or a source checkout
    if (source / "piperik" / "pik_capi.h").is_file():
        return str(source)
    raise RuntimeError(f"piperik's C headers are missing from {shipped}: reinstall piperik")
