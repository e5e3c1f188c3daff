"""The run loop every training method shares: the method's learner does one iteration at a time, the
loop does the rest.

What the loop owns, for every method (:mod:`newmarket_env.train.methods`): a new run's start or a
resumed one's (the learner's state from the checkpoint :func:`~newmarket_env.train.run.prepare_run`
found, the log rows a killed process wrote after it dropped), ``run.max_minutes``, an evaluation
before training and every ``eval.every`` steps (``eval.csv``, ``learning_curve.png``), checkpoints
(every ``run.checkpoint_every`` steps, or after each iteration for a method that asks, when the clock
stops the run, and at its end; each written through a temporary name and stamped with the run), the
final files (``final.npz``, ``final.json``, ``final_eval.json``) and what the run prints
(:mod:`newmarket_env.train.progress`).

One pass: the learner's iteration; its row in ``progress.csv``; a checkpoint if one is due; an
evaluation if one is due; a progress line if one is due; the clock (checked after an iteration: at
least one runs). A resumed run starts its pass where the checkpoint left it.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.evaluate import EVAL_FIELDS, evaluation_rows, print_final_evaluation
from newmarket_env.train.logs import append_rows, keep_rows_up_to
from newmarket_env.train.methods import Learner, Method, RunContext, get_method
from newmarket_env.train.plot import plot_curve
from newmarket_env.train.progress import Progress
from newmarket_env.train.rundir import write_atomic
from newmarket_env.train.stamped import write_stamped

if TYPE_CHECKING:
    from newmarket_env.train.run import RunStart


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


def run_method(config: TrainConfig, start: RunStart, command: str = "", device: str = "cpu") -> Path:
    """Train ``config`` with its method from ``start`` (a checked run folder); return the final agent's path.

    numpy's BLAS and torch get ``run.torch_threads`` threads: the networks' forward passes at the tables
    and in evaluations are small, and more threads only wait on each other (on a 2-core machine,
    OpenBLAS's idle threads spinning between small products cost about 3x: docs/benchmark.md).
    """
    import torch  # optional: every method of the package trains with torch (train extra)
    from threadpoolctl import threadpool_limits  # optional: the train extra

    method = get_method(config.method)
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    context = RunContext(start.out_dir, start.run["run_id"], rules, device, config.run.verbose)
    for line in start.skipped:
        print(f"--resume: skipped {line}", flush=True)
    with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):
        torch.set_num_threads(config.run.torch_threads)
        learner = method.learner(config, context)
        try:
            return _Run(config, method, learner, start, command).run()
        finally:
            learner.close()


class _Run:
    """One run's pass through the loop (see the module's text)."""

    def __init__(self, config: TrainConfig, method: Method, learner: Learner, start: RunStart, command: str) -> None:
        self.config, self.method, self.learner, self.start, self.command = config, method, learner, start, command
        self.out_dir = start.out_dir
        self.run_id = start.run["run_id"]
        self.began = time.time()
        self.progress: Progress | None = None

    def run(self) -> Path:
        config, method, learner, out_dir = self.config, self.method, self.learner, self.out_dir
        total = config.run.total_steps
        if self.start.checkpoint is not None:
            # the rows a killed process wrote after the checkpoint go, before the learner opens its logs
            for name, column in (("progress.csv", method.steps_column), ("eval.csv", "steps")):
                keep_rows_up_to(out_dir / name, column, self.start.steps)
            learner.resume(self.start.checkpoint, self.start.steps)
            print(f"resuming from {self.start.checkpoint.name} ({learner.steps:,} {method.unit})", flush=True)
        else:
            learner.begin()
        self.progress = progress = Progress(
            total, method.unit, method.shown, learner.steps, config.run.progress_bar, config.run.verbose
        )
        limit = config.run.max_minutes
        if config.run.progress_bar:
            budget = f", at most {limit:g} minute{'' if limit == 1 else 's'}" if limit else ""
            progress.say(f"training {config.name} ({method.name}) into {out_dir}: {total:,} {method.unit}{budget}")
        self.began = time.time()
        deadline = self.began + 60 * limit if limit else None
        evaluations = Every(config.eval.every, learner.steps)
        checkpoints = Every(config.run.checkpoint_every, learner.steps)
        if self.start.checkpoint is None and config.eval.every and config.eval.opponents:
            self.evaluate()  # where training starts from (after a warm start, if any)
        try:
            while learner.steps < total:
                row = learner.iterate()
                progress.note(learner.steps, row)
                if method.progress_fields:
                    append_rows(out_dir / "progress.csv", list(method.progress_fields), [row])
                done = learner.steps >= total
                stopped = not done and deadline is not None and time.time() >= deadline
                if checkpoints.due(learner.steps) or method.checkpoint_each_iteration or stopped or done:
                    self.checkpoint()
                if evaluations.due(learner.steps) and config.eval.opponents:
                    self.evaluate()
                progress.tick(learner.steps)
                if stopped:
                    progress.say(
                        f"stopped by run.max_minutes = {limit:g} after {learner.steps:,} of {total:,} "
                        f"{method.unit}; saving the agent and evaluating it"
                    )
                    break
        finally:
            progress.close()
        return self.finish()

    def checkpoint(self) -> Path:
        """The learner's checkpoint of its steps, written through a temporary name and stamped with the run."""
        steps = self.learner.steps
        path = self.method.checkpoint_path(self.out_dir / "checkpoints", steps)
        written = write_stamped(
            path,
            self.run_id,
            steps,
            lambda temporary: self.learner.save(Path(temporary)),
            self.method.checkpoint_folder,
        )
        self.learner.on_checkpoint()
        return written

    def evaluate(self) -> list[dict[str, Any]]:
        """The periodic evaluation: rows appended to eval.csv, the curve redrawn, a progress line."""
        config, steps = self.config, self.learner.steps
        rows = evaluation_rows(config, self.learner.agent(), config.eval.sessions, steps, self.began)
        append_rows(self.out_dir / "eval.csv", EVAL_FIELDS, rows)
        plot_curve(
            self.out_dir / "eval.csv",
            self.out_dir / "learning_curve.png",
            title=config.name,
            xlabel=self.method.xlabel,
        )
        self.learner.on_evaluation(rows)
        if self.progress is not None:
            self.progress.evaluated(steps, rows)
        return rows

    def finish(self) -> Path:
        """final.npz (and the method's other final files), final.json, the final evaluation and the curve."""
        config, learner, out_dir = self.config, self.learner, self.out_dir
        training = {
            "config": config.to_dict(),
            "method": self.method.name,
            "steps": learner.steps,
            "train_seconds": round(time.time() - self.began, 1),
            "command": self.command,
            "python": platform.python_version(),
            "run_id": self.run_id,
            **learner.training_info(),
        }
        metadata = learner.export(out_dir, training)
        write_atomic(out_dir / "final.json", json.dumps(metadata, indent=2, sort_keys=True))
        if config.eval.opponents:
            rows = evaluation_rows(config, learner.agent(), config.eval.final_sessions, learner.steps, self.began)
            write_atomic(out_dir / "final_eval.json", json.dumps(rows, indent=2))
            if (out_dir / "eval.csv").exists():
                plot_curve(
                    out_dir / "eval.csv",
                    out_dir / "learning_curve.png",
                    title=config.name,
                    final=rows,
                    xlabel=self.method.xlabel,
                )
            print_final_evaluation(config.name, rows)
        return out_dir / "final.npz"
