"""Pictures of joint trajectories (matplotlib, an optional dependency: pip install 'piperik[plot]')."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np


def plot_trajectory(arm, traj, out_path, *, singularity_margin: float = 0.05, title: Optional[str] = None) -> Path:
    """Joint angles against time, one panel per joint, the region beyond each joint limit shaded
    red and the times where the arm is near a singularity (its singularity measure below
    ``singularity_margin``) shaded grey. Writes ``out_path`` (PNG, SVG, PDF by suffix)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("plotting needs matplotlib: pip install 'piperik[plot]'") from exc
    t, q = traj.t_s, traj.q_rad
    sing = np.array([arm.singularity(row) for row in q])
    near = sing < singularity_margin
    fig, axes = plt.subplots(arm.dof, 1, sharex=True, figsize=(8, 1.4 * arm.dof + 1))
    for j, ax in enumerate(axes):
        lo, hi = arm.lower[j], arm.upper[j]
        span = max(hi - lo, 1e-3)
        ax.axhspan(hi, hi + 0.15 * span, color="tab:red", alpha=0.15, lw=0)
        ax.axhspan(lo - 0.15 * span, lo, color="tab:red", alpha=0.15, lw=0)
        ax.axhline(hi, color="tab:red", lw=0.8)
        ax.axhline(lo, color="tab:red", lw=0.8)
        if near.any():
            edges = np.flatnonzero(np.diff(np.concatenate([[0], near.astype(int), [0]])))
            for a, b in zip(edges[::2], edges[1::2]):
                ax.axvspan(t[a], t[min(b, len(t) - 1)], color="0.5", alpha=0.3, lw=0)
        ax.plot(t, q[:, j], color="tab:blue", lw=1.2)
        ax.set_ylim(lo - 0.15 * span, hi + 0.15 * span)
        ax.set_ylabel(f"q{j + 1} [rad]")
    axes[-1].set_xlabel("time [s]")
    fig.suptitle(title or f"{arm!r}: {len(t)} samples at {traj.rate_hz:g} Hz, {traj.duration_s:.2f} s "
                 "(red: beyond limits, grey: near a singularity)", fontsize=9)
    fig.tight_layout()
    out = Path(out_path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
