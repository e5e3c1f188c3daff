"""What a training method is to the shared run loop: a :class:`Method` (its config sections, its
checkpoints' names, how it counts steps) that builds a :class:`Learner` (the loop body: one iteration at
a time, a checkpoint, the network as a saved agent).

The run loop (:mod:`newmarket_env.train.loop`) owns everything else: the run folder and its lock,
``--resume``, ``run.max_minutes``, the evaluation cadence, when checkpoints are written, the final
files and the learning curve. A method written against this interface gets all of that, from a YAML
config, as the built-in ones do (docs/tutorials/own_method.md shows one in full).

A method's module is imported whenever a config is validated (its sections are part of every config's
key set), so it should import its heavy libraries (torch, Ray) in the module that holds its learner,
which :meth:`Method.learner` imports when a run starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent, save_policy
from newmarket_env.game.rules import Rules, make_rules
from newmarket_env.train.stamped import Found, find_stamped, stamped_path, stamped_steps

if TYPE_CHECKING:
    from newmarket_env.train.config import TrainConfig

#: The layers of a saved agent: ``(weight, bias)`` per linear layer, input first (weight ``(out, in)``).
Layers = list[tuple[Any, Any]]


@dataclass(frozen=True)
class RunContext:
    """What a learner gets from the run loop besides its config.

    ``out_dir`` is the run folder (a method may keep files of its own there: declare them in
    :attr:`Method.outputs`); ``run_id`` stamps them; ``device`` is ``"cpu"`` or ``"cuda"`` (``run.device``
    resolved); ``verbose`` is ``run.verbose`` (a learner prints its own per-iteration lines with :meth:`say`).
    """

    out_dir: Path
    run_id: str
    rules: Rules
    device: str = "cpu"
    verbose: bool = False

    def say(self, line: str) -> None:
        """Print ``line`` with ``run.verbose`` (``--verbose``); the default output is the loop's progress lines."""
        if self.verbose:
            print(line, flush=True)


class Learner:
    """One run of a method: the loop body.

    The loop calls :meth:`begin` (a new run) or :meth:`resume` (``--resume``), then :meth:`iterate` until
    :attr:`steps` reaches ``run.total_steps`` or the clock stops it, with :meth:`save` for each checkpoint
    and :meth:`agent` for each evaluation, and at the end :meth:`export` and :meth:`close`.
    Subclasses set :attr:`steps` (``run.total_steps`` units done) and implement :meth:`iterate`,
    :meth:`save`, :meth:`resume` and either :meth:`policy_layers` (with :attr:`activation`) or :meth:`agent`
    and :meth:`export`.
    """

    steps: int = 0
    #: The saved-agent activation between hidden layers: ``"tanh"`` or ``"relu"``.
    activation: str = "tanh"

    def __init__(self, config: TrainConfig, context: RunContext) -> None:
        self.config, self.context = config, context

    # ---------------------------------------------------------------- the loop body
    def begin(self) -> None:
        """A new run, before its first iteration (e.g. a warm start); nothing by default."""

    def resume(self, checkpoint: Path, steps: int) -> None:
        """Continue from ``checkpoint`` (what :meth:`save` wrote after ``steps`` steps): set every state and
        :attr:`steps` so that the next :meth:`iterate` is the one an uninterrupted run would do."""
        raise NotImplementedError

    def iterate(self) -> dict[str, Any]:
        """One iteration: advance :attr:`steps`; return its figures (a row of ``progress.csv`` holding
        :attr:`Method.progress_fields`; the loop's progress lines show :attr:`Method.shown` of them)."""
        raise NotImplementedError

    def save(self, path: Path) -> None:
        """Write the checkpoint of :attr:`steps` at ``path`` (a temporary name: the loop renames and stamps it;
        a folder already made when :attr:`Method.checkpoint_folder`)."""
        raise NotImplementedError

    def on_checkpoint(self) -> None:
        """Called after each checkpoint is written: a resumed run starts from here. A learner whose state a
        checkpoint does not hold (PPO's running sessions) restarts it from the steps, as :meth:`resume` does,
        so that an uninterrupted run and a resumed one go on alike. Nothing by default."""

    # ---------------------------------------------------------------- the network
    def policy_layers(self) -> Layers:
        """The policy as saved-agent layers (numpy, input first); its outputs are the 79 logits."""
        raise NotImplementedError

    def metadata(self) -> dict[str, Any]:
        """The saved-agent metadata of :meth:`policy_layers` (format, variant, rules, activation)."""
        return saved_metadata(self.config, self.context.rules, self.activation)

    def agent(self, seed: int = 0) -> SavedAgent:
        """The current policy as a greedy numpy agent: what evaluations play and ``final.npz`` holds."""
        return SavedAgent(
            self.context.rules, seed, self.metadata(), self.policy_layers(), sample=False, name=self.config.name
        )

    def training_info(self) -> dict[str, Any]:
        """Entries the method adds to the saved agent's ``training`` metadata (library versions, ...)."""
        return {}

    def export(self, out_dir: Path, training: dict[str, Any]) -> dict[str, Any]:
        """Write ``final.npz`` (and any other final file of the method); return final.npz's metadata."""
        config = self.config
        return save_policy(
            out_dir / "final.npz",
            self.policy_layers(),
            self.context.rules,
            config.env.variant,
            self.activation,
            training,
            name=config.name,
        )

    def on_evaluation(self, rows: list[dict[str, Any]]) -> None:
        """Each periodic evaluation's rows (eval.csv's), e.g. for the method's own logger; nothing by default."""

    def close(self) -> None:
        """Release what the learner holds (envs, a Ray it started); called however the run ends."""


class Method:
    """A training method: its name, its config sections, its checkpoints and its learner.

    Class attributes describe it; :meth:`learner` builds the loop body. The defaults suit a method whose
    checkpoints are single files ``checkpoints/<name>_<steps>_steps.pt`` and whose curve measures them.
    """

    #: The ``method:`` value of a config.
    name: str = ""
    #: One line: what it learns (``--describe``, the docs).
    summary: str = ""
    #: Config sections it reads besides the shared ones (env, opponents, network, run, eval): name -> dataclass of
    #: :func:`newmarket_env.train.config.spec` fields. A section belongs to one method.
    sections: ClassVar[Mapping[str, type]] = {}
    #: What ``run.total_steps`` counts, and the short word for it in printed lines.
    unit: str = "learner decisions"
    word: str = "decisions"
    #: Its checkpoints: ``checkpoints/<prefix>_<steps>_steps<suffix>`` (a folder when ``checkpoint_folder``).
    checkpoint_prefix: str = ""
    checkpoint_suffix: str = ".pt"
    checkpoint_folder: bool = False
    #: A checkpoint after every iteration (long iterations), not only every ``run.checkpoint_every`` steps.
    checkpoint_each_iteration: bool = False
    #: progress.csv's columns (the rows :meth:`Learner.iterate` returns); empty: the learner writes its own
    #: progress.csv (PPO: SB3's logger), whose step column is ``steps_column``.
    progress_fields: Sequence[str] = ()
    steps_column: str = "steps"
    #: The figures of each iteration's row that the progress line shows.
    shown: Sequence[str] = ()
    #: Files and folders it writes in the run folder besides the shared ones (``--overwrite`` removes
    #: them): a file name -> (), a folder -> the patterns of the files it writes there.
    outputs: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Keys of its sections a resumed run may change (machine settings that do not change what it computes).
    resumable_keys: tuple[str, ...] = ()

    @property
    def prefix(self) -> str:
        return self.checkpoint_prefix or self.name

    @property
    def xlabel(self) -> str:
        """The x axis of its learning curves."""
        return f"{self.unit} (training steps of {self.name.replace('_', ' ')})"

    def check(self, config: TrainConfig) -> None:
        """Checks of its sections that need the live package (agent names, optional libraries): a one-line
        ``ValueError`` naming the key and the allowed values. Run when a config is validated."""

    def learner(self, config: TrainConfig, context: RunContext) -> Learner:
        """The loop body of a run of ``config`` (import heavy libraries here, not at the module's top)."""
        raise NotImplementedError

    def memory(self, config: TrainConfig) -> dict[str, int]:
        """Bytes of the largest parts a run of ``config`` keeps, by what they are (the decisions it trains on,
        its networks with their gradients and Adam's moments): ``newmarket train`` refuses a run whose sum is
        above the memory the machine has available, in one line naming the largest part. None known: {}."""
        return {}

    # ---------------------------------------------------------------- its checkpoints
    def checkpoint_path(self, folder: Path, steps: int) -> Path:
        return stamped_path(folder, self.prefix, steps, self.checkpoint_suffix)

    def find_checkpoint(self, folder: Path, run_id: str) -> Found:
        """The newest intact checkpoint of run ``run_id`` in ``folder`` (newer ones passed over say why)."""
        return find_stamped(folder, self.prefix, self.checkpoint_suffix, run_id)

    def checkpoint_files(self) -> tuple[str, ...]:
        """The patterns of its files in ``checkpoints/`` (with their stamps and a killed write's temporaries)."""
        prefix = self.prefix
        return (f"{prefix}_*_steps{self.checkpoint_suffix}", f"{prefix}_*_steps.json", f".{prefix}_*")

    # ---------------------------------------------------------------- after the run: curves, leaderboards
    def curve_points(self, run_dir: Path) -> list[int]:
        """The step counts at which a finished run's network can be measured, oldest first."""
        return [steps for steps, _ in stamped_steps(run_dir / "checkpoints", self.prefix, self.checkpoint_suffix)]

    def curve_file(self, run_dir: Path, steps: int) -> Path:
        """The file of the point ``steps`` (its time is when it was saved: the leaderboard's clock)."""
        return self.checkpoint_path(run_dir / "checkpoints", steps)

    def no_curve_points(self, run_dir: Path) -> str:
        """The one-line error for a run folder with no point to measure."""
        name = f"{self.prefix}_<steps>_steps{self.checkpoint_suffix}"
        return f"{run_dir / 'checkpoints'} holds no {name} checkpoint"

    def network_at(self, config: TrainConfig, run_dir: Path, steps: int) -> SavedAgent:
        """The greedy network of the point ``steps`` as a saved agent: by default the learner of the run's
        config, resumed from that checkpoint."""
        rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
        learner = self.learner(config, RunContext(run_dir, "", rules))
        try:
            learner.resume(self.curve_file(run_dir, steps), steps)
            return learner.agent()
        finally:
            learner.close()


def saved_metadata(config: TrainConfig, rules: Rules, activation: str, **extra: Any) -> dict[str, Any]:
    """Saved-agent metadata for a network of ``config``'s game (what :meth:`Learner.metadata` gives)."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": config.env.variant,
        "rules": rules.to_dict(),
        "activation": activation,
        **extra,
    }


__all__ = ["Layers", "Learner", "Method", "RunContext", "saved_metadata"]
