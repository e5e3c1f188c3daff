"""What a training run prints: a line per evaluation or per minute, whatever the method.

By default (``run.progress_bar: true``) a run prints one line when it starts, one after each evaluation
and one a minute otherwise (checked between iterations), each with the figures that matter: the steps
done of the budget, the steps per second of this process, the time, the method's own figures of its
latest iteration (:attr:`Method.shown`) and the latest evaluation. ``run.verbose`` (``--verbose``) adds
each iteration's own line (and SB3's tables for PPO) and a progress bar; ``run.progress_bar: false``
(``--no-progress``) leaves only the start and the end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

#: Seconds between progress lines when no evaluation prints one.
EVERY_SECONDS = 60.0


def clock(seconds: float) -> str:
    """``75.0`` -> ``'1m15s'``; ``3725`` -> ``'1h02m'``; ``9.5`` -> ``'9s'``.

    >>> clock(75.0), clock(3725), clock(9.5)
    ('1m15s', '1h02m', '9s')
    """
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def figure(value: Any) -> str:
    """A figure as a progress line shows it: 4 significant digits, integers with separators.

    >>> figure(0.012345), figure(-3.0), figure(12345), figure("n/a"), figure(float("nan"))
    ('0.01235', '-3', '12,345', 'n/a', 'nan')
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return "nan" if math.isnan(value) else f"{value:.4g}"


def evaluation_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """``vs control +0.31 ±0.42`` per opponent of one evaluation's rows.

    >>> evaluation_text([{"opponent": "control", "mean": 0.314, "ci95": 0.42}])
    'vs control +0.31 ±0.42'
    """
    return ", ".join(f"vs {row['opponent']} {float(row['mean']):+.2f} ±{float(row['ci95']):.2f}" for row in rows)


class Progress:
    """The progress lines (and with ``verbose`` the bar) of one run; see the module's text."""

    def __init__(
        self,
        total: int,
        unit: str,
        shown: Sequence[str],
        start_steps: int,
        lines: bool = True,
        verbose: bool = False,
    ) -> None:
        self.total, self.unit, self.shown = total, unit, tuple(shown)
        self.start_steps, self.lines = start_steps, lines
        self.began = self.last = time.time()
        self.latest_eval: tuple[int, str] | None = None
        self.latest_row: Mapping[str, Any] = {}
        self.bar = _bar(total, start_steps, unit) if verbose and lines else None

    def say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, flush=True)

    def line(self, steps: int) -> str:
        """The progress line at ``steps``."""
        elapsed = time.time() - self.began
        rate = (steps - self.start_steps) / elapsed if elapsed > 0 else 0.0
        parts = [
            f"{steps:,} of {self.total:,} {self.unit} ({100 * steps / self.total:.0f}%)",
            f"{rate:,.0f}/s",
            clock(elapsed),
        ]
        parts += [f"{key} {figure(self.latest_row[key])}" for key in self.shown if key in self.latest_row]
        if self.latest_eval is not None:
            at, text = self.latest_eval
            parts.append(f"eval at {at:,}: {text}")
        return "  ".join(parts)

    def note(self, steps: int, row: Mapping[str, Any]) -> None:
        """An iteration's figures (the bar moves; the next line shows them)."""
        self.latest_row = row
        if self.bar is not None:
            self.bar.update(max(0, min(steps, self.total) - self.bar.n))

    def tick(self, steps: int) -> None:
        """At the end of a pass: a line if none was printed for a minute."""
        if self.lines and time.time() - self.last >= EVERY_SECONDS:
            self._print(steps)

    def evaluated(self, steps: int, rows: Sequence[Mapping[str, Any]]) -> None:
        """After an evaluation: its figures, in a line now."""
        self.latest_eval = (steps, evaluation_text(rows))
        if self.lines:
            self._print(steps)

    def _print(self, steps: int) -> None:
        self.say(self.line(steps))
        self.last = time.time()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _bar(total: int, start: int, unit: str) -> Any:
    from tqdm import tqdm  # type: ignore[import-untyped]  # optional: the train extra has tqdm (SB3 needs it)

    return tqdm(total=total, initial=min(start, total), unit=" " + unit.split()[-1], dynamic_ncols=True)
