"""Learning curve: evaluation chips per deal (with 95% CI) against env steps, one line per opponent."""

from __future__ import annotations

import csv
import os
import textwrap
from collections import defaultdict
from pathlib import Path


def read_eval_csv(path: str | Path, value: str = "mean") -> dict[str, list[tuple[int, float, float]]]:
    """Opponent -> [(steps, mean, ci95), ...] from an eval.csv; ``value="margin"``: the margin and its
    half-width (``margin``, ``margin_ci95``) instead."""
    spread = "ci95" if value == "mean" else f"{value}_ci95"
    series: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            series[row["opponent"]].append((int(row["steps"]), float(row[value]), float(row[spread])))
    return dict(series)


def plot_curve(
    csv_path: str | Path,
    png_path: str | Path,
    title: str = "",
    references: dict[str, float] | None = None,
    final: list[dict] | None = None,
    value: str = "mean",
    xlabel: str = "env steps (learner decisions; 0 = after the warm start)",
) -> None:
    """Draw the curve of ``csv_path`` into a small PNG.

    ``final`` (rows of final_eval.json) is drawn as one diamond per opponent with its interval, apart
    from the periodic line: it is a larger evaluation, not one more point of the series.

    ``value="margin"`` draws each opponent's margin (the tested agent minus the opponent in its seat) in
    place of its chips per deal.

    ``references`` (opponent -> chips per deal of that opponent in the tested seat
    itself) are drawn dashed: in house-stake rules (Newbury) every seat gains
    chips, so the learner plays better only where its line is above the reference.
    """
    import matplotlib  # optional: needs matplotlib (train/eval extra)

    matplotlib.use("Agg")  # files only: training runs headless
    import matplotlib.pyplot as plt  # optional: needs matplotlib (train/eval extra)

    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=90)
    for opponent, points in sorted(read_eval_csv(csv_path, value).items()):
        points.sort()
        steps = [p[0] for p in points]
        mean = [p[1] for p in points]
        (line,) = ax.plot(steps, mean, marker=".", label=f"vs {opponent}")
        if references and opponent in references:
            ax.axhline(
                references[opponent],
                color=line.get_color(),
                linestyle="--",
                linewidth=1,
                label=f"{opponent} itself in the seat",
            )
        ax.fill_between(
            steps,
            [m - p[2] for m, p in zip(mean, points, strict=True)],
            [m + p[2] for m, p in zip(mean, points, strict=True)],
            alpha=0.2,
        )
        for row in final or ():
            if row["opponent"] == opponent:
                ax.errorbar(
                    [row["steps"]],
                    [row["mean"]],
                    yerr=[[row["ci95"]], [row["ci95"]]],
                    fmt="D",
                    color=line.get_color(),
                    markerfacecolor="white",
                    capsize=3,
                    label=f"final vs {opponent} ({row['boards']} deal sets)",
                )
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("chips per deal (duplicate eval)" if value == "mean" else "margin over the opponent, chips/deal")
    # Wrapped: a long title (run name, setting) would run past the small figure's edge.
    ax.set_title(textwrap.fill(title, 80), fontsize=10)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    # Through a temporary file: a reader (or a kill) never meets a half-written curve.
    temporary = Path(png_path).with_name(f".{Path(png_path).name}.tmp.png")
    try:
        fig.savefig(temporary)
        os.replace(temporary, png_path)
    finally:  # a failed write or an interrupt leaves no temporary behind (a kill's is removed by --overwrite)
        plt.close(fig)
        temporary.unlink(missing_ok=True)
