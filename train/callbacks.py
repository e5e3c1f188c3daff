"""Training callbacks: periodic duplicate evaluation, self-play snapshots, episode chips."""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from newmarket_env.train.config import TrainConfig
from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker
from newmarket_env.train.export import export_agent, memory_agent
from newmarket_env.train.plot import plot_curve

EVAL_FIELDS = ["steps", "opponent", "mean", "ci95", "low", "high", "boards", "games", "wall_s"]


class Every:
    """True once each time the step counter passes a multiple of ``period`` (0 = never)."""

    def __init__(self, period: int, start: int = 0) -> None:
        self.period = period
        self.next = (start // period + 1) * period if period else None

    def due(self, steps: int) -> bool:
        if self.next is None or steps < self.next:
            return False
        self.next = (steps // self.period + 1) * self.period
        return True


class EpisodeChips(BaseCallback):
    """Logs the learner's chips per deal over finished episodes (``rollout/chips_per_deal``)."""

    def __init__(self) -> None:
        super().__init__()
        self.recent: list[float] = []

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "chips" in info:
                self.recent.append(info["chips"] / info["deals"])
        return True

    def _on_rollout_end(self) -> None:
        if self.recent:
            self.logger.record("rollout/chips_per_deal", float(np.mean(self.recent)))
            self.recent = []


class WallClockLimit(BaseCallback):
    """Stops training after ``minutes`` of wall time (0 = never); the run then saves and evaluates."""

    def __init__(self, minutes: float) -> None:
        super().__init__()
        self.deadline = time.time() + minutes * 60 if minutes else None
        self.stopped = False  # True once the limit ended training (the run then says so)

    def _on_step(self) -> bool:
        self.stopped = self.deadline is not None and time.time() >= self.deadline
        return not self.stopped


class DuplicateEval(BaseCallback):
    """Every ``eval.every`` steps: the greedy policy against each eval opponent, appended to eval.csv."""

    def __init__(self, config: TrainConfig, rules: Any, out_dir: Path, start_steps: int = 0) -> None:
        super().__init__()
        self.config, self.rules, self.out_dir = config, rules, out_dir
        self.clock = Every(config.eval.every, start_steps)
        self.csv_path = out_dir / "eval.csv"
        self.started = time.time()

    def _on_training_start(self) -> None:
        if self.config.eval.every and self.num_timesteps == 0:
            self.evaluate(self.config.eval.sessions)

    def _on_step(self) -> bool:
        if self.clock.due(self.num_timesteps):
            self.evaluate(self.config.eval.sessions)
        return True

    def evaluate(self, boards: int, final: bool = False) -> list[dict[str, Any]]:
        """Run the duplicate evaluation now, log it and redraw the curve.

        A periodic evaluation is appended to eval.csv; the ``final`` one (more deal sets) is not one more
        point of that series: it is returned (for final_eval.json) and drawn apart on the curve.
        """
        rows = [self._one(opponent, boards) for opponent in self.config.eval.opponents]
        if not final:
            new = not self.csv_path.exists()
            with open(self.csv_path, "a", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=EVAL_FIELDS)
                if new:
                    writer.writeheader()
                writer.writerows(rows)

        if self.csv_path.exists():
            plot_curve(
                self.csv_path,
                self.out_dir / "learning_curve.png",
                title=self.config.name,
                final=rows if final else None,
            )
        return rows

    def _one(self, opponent: str, boards: int) -> dict[str, Any]:
        env_cfg = self.config.env
        activation = self.config.ppo.activation
        learner = saved_agent_maker(memory_agent(self.model, self.rules, env_cfg.variant, activation))
        result = duplicate_eval(
            learner,
            opponent,
            env_cfg.variant,
            env_cfg.num_players,
            boards=boards,
            seed=self.config.eval.seed,
            rules=env_cfg.rules,
            backend=self.config.eval.backend,
            address=self.config.eval.address or None,
        )
        self.logger.record(f"eval/chips_per_deal_vs_{opponent}", result.mean)
        row = {"steps": self.num_timesteps, **result.as_row(), "wall_s": round(time.time() - self.started, 1)}
        return {k: row[k] for k in EVAL_FIELDS}


class SelfPlaySnapshots(BaseCallback):
    """Every ``opponents.snapshot_every`` steps, freeze the policy into the opponent pool."""

    def __init__(self, config: TrainConfig, rules: Any, out_dir: Path, start_steps: int = 0) -> None:
        super().__init__()
        self.config, self.rules = config, rules
        self.folder = out_dir / "snapshots"
        self.clock = Every(config.opponents.snapshot_every, start_steps)

    def existing(self) -> list[str]:
        """Snapshot files already in the run folder, oldest first (kept across --resume)."""
        files = sorted(self.folder.glob("snapshot_*.npz"), key=lambda p: int(p.stem.split("_")[1]))
        return [str(p) for p in files[-self.config.opponents.max_snapshots :]]

    def _on_training_start(self) -> None:
        if self.existing():
            self.training_env.env_method("set_snapshots", self.existing())

    def _on_step(self) -> bool:
        if self.clock.due(self.num_timesteps):
            path = self.folder / f"snapshot_{self.num_timesteps}.npz"
            export_agent(
                self.model,
                str(path),
                self.rules,
                self.config.env.variant,
                self.config.ppo.activation,
                {"steps": self.num_timesteps, "run": self.config.name},
            )
            self.training_env.env_method("set_snapshots", self.existing())
            self.logger.record("selfplay/snapshots", len(self.existing()))
        return True
