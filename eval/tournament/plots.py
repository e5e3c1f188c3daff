"""PNG plots of a tournament (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _pyplot():
    import matplotlib  # optional: needs matplotlib (train/eval extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional: needs matplotlib (train/eval extra)

    return plt


def _title(ax, title: str, about: str) -> None:
    """The plot's title, with what was played (variant, players, sessions) on a second line."""
    ax.set_title(f"{title}\n{about}" if about else title, fontsize=10)


def chips_per_deal_figure(standings: list[dict[str, Any]], about: str = ""):
    """Mean chips per deal per agent with its 95% bootstrap interval, best at the top."""
    plt = _pyplot()
    labels = [row["agent"] for row in standings][::-1]
    stats = [row["chips_per_deal"] for row in standings][::-1]
    means = np.array([s["mean"] for s in stats])
    low = np.array([s["mean"] - s["low"] if s["low"] is not None else 0.0 for s in stats])
    high = np.array([s["high"] - s["mean"] if s["high"] is not None else 0.0 for s in stats])
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(labels) + 1.8), layout="constrained")
    colours = ["tab:green" if m >= 0 else "tab:red" for m in means]
    ax.barh(labels, means, xerr=[low, high], color=colours, alpha=0.8, capsize=4)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("chips per deal (95% bootstrap interval over deal blocks)")
    _title(ax, "Mean chips per deal", about)
    return fig


def pairwise_figure(standings: list[dict[str, Any]], pairwise: list[dict[str, Any]], about: str = ""):
    """Heatmap of row-minus-column chips per deal; a star marks a paired interval that excludes zero."""
    plt = _pyplot()
    order = [row["agent"] for row in standings]
    index = {label: i for i, label in enumerate(order)}
    grid = np.zeros((len(order), len(order)))
    stars = np.zeros_like(grid, dtype=bool)
    for p in pairwise:
        grid[index[p["agent"]], index[p["opponent"]]] = p["difference"]["mean"]
        stars[index[p["agent"]], index[p["opponent"]]] = p["separated"]
    span = max(float(np.abs(grid).max()), 1e-9)
    size = 0.7 * len(order) + 2.5
    # Constrained layout gives the colour bar its own room: it used to cover the end of the title.
    fig, ax = plt.subplots(figsize=(size + 1.5, size + 0.5), layout="constrained")
    image = ax.imshow(grid, cmap="RdBu", vmin=-span, vmax=span)
    ax.set_xticks(range(len(order)), order, rotation=45, ha="right")
    ax.set_yticks(range(len(order)), order)
    for (i, j), value in np.ndenumerate(grid):
        if i != j:
            colour = "white" if abs(value) > 0.6 * span else "black"  # readable on the dark ends of the map
            ax.text(
                j, i, f"{value:+.2f}" + ("*" if stars[i, j] else ""), ha="center", va="center", fontsize=8, color=colour
            )
    fig.colorbar(image, ax=ax, label="row minus column, chips per deal", shrink=0.8)
    fig.suptitle(
        "Pairwise differences (* = 95% paired interval excludes 0)" + (f"\n{about}" if about else ""), fontsize=10
    )
    return fig


def plot_chips_per_deal(standings: list[dict[str, Any]], path: str, about: str = "") -> None:
    """:func:`chips_per_deal_figure` saved as a PNG."""
    _save(chips_per_deal_figure(standings, about), path)


def plot_pairwise(standings: list[dict[str, Any]], pairwise: list[dict[str, Any]], path: str, about: str = "") -> None:
    """:func:`pairwise_figure` saved as a PNG."""
    _save(pairwise_figure(standings, pairwise, about), path)


def _save(fig, path: str) -> None:
    plt = _pyplot()
    fig.savefig(path, dpi=120)
    plt.close(fig)
