"""Drive an AgileX PiPER over CAN through piper_sdk, and a simulated PiPER to test against.

Needs the extra: ``pip install "piperik[agilex]"`` (piper_sdk, python-can).

    from piperik.agilex import PiperDriver, SimulatedPiper
    drv = PiperDriver.from_channel("can0")       # piper_sdk on socketcan, arm enabled, joint mode
    drv.move_to_pose(T)                          # a limit-safe straight line from where the arm is
"""
from .driver import ArmFaultError, DriveError, DriveReport, FeedbackStaleError, Hold, PiperDriver
from .limiter import MotionLimiter
from .sim import SimulatedPiper, firmware_is_legacy

__all__ = ["ArmFaultError", "DriveError", "DriveReport", "FeedbackStaleError", "Hold", "MotionLimiter",
           "PiperDriver", "SimulatedPiper", "firmware_is_legacy"]
