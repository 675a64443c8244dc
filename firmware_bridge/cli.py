"""The bridge's command-line commands, registered into ``piperik``'s CLI.

piperik finds them through the ``piperik.commands`` entry point (pyproject.toml), so the
dependency runs one way only: this package uses piperik's public API (the arm classes and
:mod:`piperik.cli`'s plugin helpers); piperik never imports ``firmware_bridge``.
"""
from __future__ import annotations

import sys

import numpy as np

from piperik.cli import add_arm_arguments, arm_from_args, int_in
from piperik.poses import MDEG_PER_RAD, q_from_mdeg


def register(subparsers) -> None:
    """Adds ``piperik stream`` to the CLI's argparse subparsers."""
    p = subparsers.add_parser("stream", help="stream a demo motion to a device over serial")
    add_arm_arguments(p)
    p.add_argument("--port", required=True, help="device path, pyserial URL or USB VID:PID")
    p.add_argument("--baud", type=int, default=921600)
    p.add_argument("--demo", action="store_true", help="stream the demo motion")
    p.add_argument("--rate", type=float, default=500.0, help="setpoints per second (default 500)")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--watchdog-ms", type=int_in(0, 65535, "the watchdog period [ms]"), default=100,
                   help="device watchdog period [ms], 0 .. 65535 (0 keeps the device's; default 100)")
    p.set_defaults(func=cmd_stream)


def cmd_stream(args) -> int:
    from .streamer import LinkError, Streamer  # pyserial only when the command runs

    arm = arm_from_args(args)
    if not args.demo:
        print("piperik stream: only --demo is implemented on the command line; use "
              "firmware_bridge.Streamer from Python for your own motions", file=sys.stderr)
        return 2
    # rounded inward, so the device never allows more than the model does
    lim = np.stack([np.ceil(arm.lower * MDEG_PER_RAD), np.floor(arm.upper * MDEG_PER_RAD)], axis=1)
    try:
        with Streamer(args.port, baudrate=args.baud) as link:
            link.configure(watchdog_ms=args.watchdog_ms, limits_mdeg=lim)
            link.enable()
            st = link.state()
            q0 = q_from_mdeg(st.q_mdeg) if st else np.zeros(arm.dof)
            if len(q0) != arm.dof:
                print(f"piperik stream: the device has {len(q0)} joints, --robot {args.robot} {arm.dof}",
                      file=sys.stderr)
                return 2
            n = int(round(args.seconds * args.rate))
            t = np.arange(n) / args.rate
            signs = np.where(np.arange(arm.dof) % 2 == 0, 1.0, -1.0)
            # a gentle sway about the device's current position, starting with zero velocity offset
            Q = q0[None] + 0.1 * np.sin(2 * np.pi * 0.5 * t)[:, None] * signs[None]
            Q = np.clip(Q, arm.lower + 1e-3, arm.upper - 1e-3)
            stats = link.stream(Q, args.rate)
            link.enable(False)
    except (LinkError, OSError, ValueError) as exc:
        print(f"piperik stream: {exc}", file=sys.stderr)
        return 2
    print(stats.summary())
    return 0 if stats.drops == 0 and stats.resets == 0 else 1
