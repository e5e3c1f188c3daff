"""Deep Monte-Carlo as a method of the run loop: its config section and its checkpoints (the learner is
:mod:`newmarket_env.train.dmc.learner`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from newmarket_env.execution.backends import BACKENDS, check_backend
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.config import ACTIVATIONS, TrainConfig, layer_sizes, read_yaml, spec
from newmarket_env.train.dmc.samples import window_problem
from newmarket_env.train.memory import DECISION_BYTES, TRAINED_WEIGHT_BYTES, weights
from newmarket_env.train.methods import Learner, Method, RunContext
from newmarket_env.train.rundir import CONFIG_FILE
from newmarket_env.train.stamped import Found, stamp_problem, stamped_steps


@dataclass
class DMCSection:
    """Deep Monte-Carlo (method: dmc): run.total_steps counts recorded learner decisions."""

    states: int = spec(4000, "learner decisions recorded per iteration", int, low=1, high=10_000_000)
    tables: int = spec(32, "tables played at once by the learner's network", int, low=1, high=4096)
    baseline_fraction: float = spec(
        0.25,
        "chance a seat at a table is a baseline from opponents.baselines instead of the learner "
        "(its decisions are not recorded)",
        float,
        low=0.0,
        high=0.95,
    )
    epsilon: float = spec(
        0.1, "chance the learner plays a uniformly drawn legal action instead of its best Q", float, low=0.0, high=1.0
    )
    window: int = spec(1, "iterations of recorded decisions the network is fitted on (replay)", int, low=1, high=10_000)
    epochs: int = spec(1, "passes over the window per iteration", int, low=1, high=1000)
    batch_size: int = spec(256, "minibatch size", int, low=1, high=1_000_000)
    learning_rate: float = spec(1e-3, "Adam step size", float, low=1e-8, high=1.0)
    aux_weight: float = spec(
        0.0,
        "weight of an auxiliary loss: a head on the Q network's last hidden layer predicts where the cards hidden "
        "from the deciding seat are (from the privileged state; training only, the head is not saved); 0 = none",
        float,
        low=0.0,
        high=100.0,
    )
    net_arch: list = layer_sizes([256, 256], "hidden layer sizes of the Q network")
    activation: str = spec("relu", "hidden activation", str, choices=ACTIVATIONS)
    actors: int = spec(
        1,
        "actors playing each iteration's decisions, each its share on a batch of its own (DouZero's layout); "
        "the decisions depend on this count, not on the backend",
        int,
        low=1,
        high=4096,
    )
    backend: str = spec(
        "local",
        "where the actors play: local (one after another in this process) or ray (Ray actors spread over "
        "the cluster's nodes; needs the ray extra)",
        str,
        choices=BACKENDS,
    )
    address: str = spec("", "with backend ray: '' starts a local Ray, 'auto' or HOST:PORT joins a cluster", str)


class DMC(Method):
    name = "dmc"
    summary = "Deep Monte-Carlo (as DouZero): action values regressed on self-play returns; plays argmax Q"
    sections: ClassVar[dict[str, type]] = {"dmc": DMCSection}
    unit = "recorded decisions"
    checkpoint_prefix = "dmc"
    progress_fields = (
        "iteration",
        "steps",
        "samples",
        "mean_return",
        "loss_before",
        "loss",
        "collect_s",
        "fit_s",
        "wall_s",
    )
    shown = ("mean_return", "loss")
    outputs: ClassVar[dict[str, tuple[str, ...]]] = {"samples": ("iter_*.npz", ".iter_*")}
    resumable_keys = ("dmc.backend", "dmc.address")  # where the actors play, not what

    def check(self, config: TrainConfig) -> None:
        from newmarket_env.train.collect import check_seatable  # the compiled tables (the engine may be absent)

        check_seatable(config.opponents.baselines, config.dmc.baseline_fraction, "dmc", "dmc.baseline_fraction")
        try:
            check_backend(config.dmc.backend, config.dmc.address or None)
        except ValueError as err:
            raise ValueError(f"dmc: {err}") from None

    def learner(self, config: TrainConfig, context: RunContext) -> Learner:
        from newmarket_env.train.dmc.learner import DMCLearner  # optional: needs torch (train extra)

        return DMCLearner(config, context)

    def memory(self, config: TrainConfig) -> dict[str, int]:
        dmc = config.dmc
        return {
            "the Q network in training": weights([FLAT_SIZE, *dmc.net_arch, NUM_ACTIONS]) * TRAINED_WEIGHT_BYTES,
            # the window's decisions, and their concatenation for the fit
            "dmc.states x dmc.window recorded decisions": 2 * dmc.states * dmc.window * DECISION_BYTES,
        }

    def find_checkpoint(self, folder: Path, run_id: str) -> Found:
        """The newest intact checkpoint whose replay window is on disk (``--resume``'s).

        The checkpoint of ``steps`` resumes at iteration ``steps // dmc.states``, which fits on the decisions of
        the ``dmc.window - 1`` iterations before it too: their ``samples/iter_*.npz`` must be this run's and
        whole. One that is damaged, or whose samples are gone, is passed over with the reason (the run keeps
        only the samples its newest checkpoint needs, so with ``dmc.window`` above 1 an older checkpoint is
        usable only if its samples were kept); with none left ``prepare_run`` says so in one line.
        ``dmc.states`` and ``dmc.window`` are the run's own, from its ``config.yaml`` (``--resume`` may not
        change them).
        """
        out_dir = folder.parent
        try:
            section = (read_yaml(out_dir / CONFIG_FILE, "the run's config") or {}).get("dmc") or {}
            states = int(section.get("states", DMCSection.states))
            window = int(section.get("window", DMCSection.window))
        except (ValueError, TypeError, AttributeError):  # start_resume read it already: this does not happen
            return super().find_checkpoint(folder, run_id)
        found = Found(None)
        for steps, path in reversed(stamped_steps(folder, self.prefix, self.checkpoint_suffix)):
            problem = stamp_problem(path, steps, run_id) or window_problem(
                out_dir, run_id, steps // states, window, states
            )
            if problem is None:
                found.path, found.steps = path, steps
                return found
            found.skipped.append(f"{path.name} {problem}")
        return found


METHOD = DMC()
