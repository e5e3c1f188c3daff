"""Training workloads: the vector env with compiled opponents, and MaskablePPO end to end on both pipelines.

- ``vector_env newmarket control``: learner decisions per second of
  :class:`~newmarket_env.envs.vector.VectorEnv` (``TABLES`` compiled tables,
  three compiled ``control`` opponents each), a random legal learner action
  drawn for all tables in one numpy call. A decision is one learner step.
- ``ppo newmarket batch`` and ``ppo newmarket single_agent``: MaskablePPO
  (collection plus updates) with the network, opponents and PPO settings of
  ``configs/newmarket_ppo.yaml`` (a snapshot of the initial policy in the pool,
  so ``snapshot_fraction`` of the opponent seats are network snapshots, as in a
  run after its first snapshot), on the batch adapter (``PPO_TABLES`` tables) and
  on the ``SingleAgentEnv`` pipeline the shipped agents were trained on
  (``DummyVecEnv`` of 8 envs x 256 steps). Both keep the config's minibatch size and epochs, so both run the
  same number of gradient steps per learner decision (the batch row collects
  ``PPO_TABLES * PPO_STEPS`` decisions a rollout, the other ``n_envs * n_steps``).
  One call of a player is one rollout and its update.
- ``ppo newmarket tutorial``: the user's own script on the fast path,
  ``examples/tutorials/train_maskable_ppo.py`` at its full size (its env, model and torch threads, built by
  its own functions; a source checkout only: the row is skipped where the script is not beside the package).
- ``ppo newmarket sb3 defaults`` (measured only when named: ``newmarket bench --rows ...``): the naive way,
  ``gymnasium.make("stops/Newmarket-v0", opponents=["random"])`` and ``MaskablePPO("MlpPolicy", env)`` with
  every SB3 default (2048 steps a rollout, minibatch 64, 10 epochs, torch's own thread count).

Every MaskablePPO row sets its torch thread count at each call, so rows timed in turn do not inherit
another row's setting.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import gymnasium

import newmarket_env
from newmarket_env import vector_env
from newmarket_env.envs.registration import GYMNASIUM_ID
from newmarket_env.envs.vector import compiled_batch
from newmarket_env.eval.bench.ours import PLAYERS
from newmarket_env.eval.bench.timing import Target, paired_ratio
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import load_config
from newmarket_env.train.export import export_agent

TABLES = 1024  # tables of the vector env row (per-step Python work is paid once for all of them)
STEPS_PER_CALL = 16  # learner steps at every table per timed call
PPO_TABLES = 256  # tables of the batch PPO row
PPO_STEPS = 32  # rollout steps per table of the batch PPO row (PPO_TABLES * PPO_STEPS decisions a rollout)
SINGLE_ENVS, SINGLE_STEPS = 8, 256  # the pipeline the shipped agents were trained on (dummy, 8 envs x 256 steps)
CONFIG = "configs/newmarket_ppo.yaml"
TUTORIAL = "examples/tutorials/train_maskable_ppo.py"  # relative to the source checkout holding the package
_TORCH_DEFAULT_THREADS: list[int] = []  # torch's thread count before any row set it


def torch_default_threads() -> int:
    """Torch's own thread count (``OMP_NUM_THREADS`` or the cores), read before the first row changes it."""
    import torch  # optional: needs torch (train extra)

    if not _TORCH_DEFAULT_THREADS:
        _TORCH_DEFAULT_THREADS.append(torch.get_num_threads())
    return _TORCH_DEFAULT_THREADS[0]


def compiled_or_why():
    try:
        compiled_batch()
    except RuntimeError as err:
        return f"skipped: {err}"
    return None


def vector_control(threads: int = 1):
    """Learner decisions/s of the vector env against compiled ``control`` opponents, its tables stepped on
    ``threads`` threads (one for the CPU-time row: the CPU time is then the work's)."""
    why = compiled_or_why()
    if why:
        return None, why

    env = vector_env(
        variant="newmarket",
        num_players=PLAYERS,
        num_envs=TABLES,
        opponents=["control"],
        copy=False,
        seed=0,
        threads=threads,
    )
    env.reset(seed=0)

    def play(seed: int) -> tuple[int, int]:
        sessions = 0
        for _ in range(STEPS_PER_CALL):
            # a uniform legal action at every table, drawn in C from the tables' own streams (a numpy draw over
            # the masks cost the driver a tenth of the step, which the threads cannot share)
            sessions += int(env.step(env.batch.random_actions())[2].sum())
        return TABLES * STEPS_PER_CALL, max(sessions, 1)

    from newmarket_env.engine._batch import parallel_backend  # compiled, as the env itself

    return play, (
        f"{PLAYERS} players, {TABLES} tables, 3 compiled control opponents, {threads} thread(s) "
        f"({parallel_backend()} when more than one); decisions = learner steps"
    )


def shipped_config():
    path = Path(CONFIG)
    return load_config(path) if path.is_file() else None


def ppo_player(vec, config, rollout: int):
    """``(model, play)``: one rollout plus its update per call of ``play``, on ``vec``, with the config's
    network and a snapshot of the initial policy in the pool."""
    import torch  # optional: needs torch (train extra)
    from threadpoolctl import threadpool_limits  # optional: needs threadpoolctl (train extra)

    from newmarket_env.train.ppo.learner import build_model  # optional: needs SB3 (train extra)

    torch_default_threads()
    torch.set_num_threads(config.run.torch_threads)
    folder = tempfile.TemporaryDirectory(prefix="bench_ppo_")  # lives as long as the player
    model = build_model(config, vec)
    from stable_baselines3.common.logger import Logger  # optional: needs stable-baselines3 (train extra)

    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3 log folders left in /tmp per row
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    path = Path(folder.name) / "snapshot_0.npz"
    export_agent(model, str(path), rules, config.env.variant, config.ppo.activation, {"steps": 0})
    vec.env_method("set_snapshots", [str(path)])
    vec.seed(config.run.seed)
    fresh = [True]

    def play(seed: int, _keep=folder) -> tuple[int, int]:
        torch.set_num_threads(config.run.torch_threads)
        with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):  # as the run loop does
            model.learn(total_timesteps=rollout, reset_num_timesteps=fresh.pop() if fresh else False)
        return rollout, 1

    return model, play


def ppo_batch():
    """MaskablePPO end to end on the batch adapter (the shipped config's network and opponents)."""
    why = compiled_or_why()
    config = shipped_config()
    if why or config is None:
        return None, why or f"skipped: {CONFIG} not found (run from the repository root)"

    from newmarket_env.train.ppo.learner import build_vec_env  # optional: needs SB3 (train extra)

    run = dataclasses.replace(config.run, n_envs=PPO_TABLES, vec_env="batch", threads=1)  # CPU time: the work's
    config = config.replaced(run=run, ppo=dataclasses.replace(config.ppo, n_steps=PPO_STEPS))
    _model, play = ppo_player(build_vec_env(config), config, PPO_TABLES * PPO_STEPS)
    return play, (
        f"{CONFIG} network/opponents/PPO, {PPO_TABLES} tables x {PPO_STEPS} steps a rollout; "
        "session = one rollout and its update"
    )


def ppo_single_agent():
    """MaskablePPO end to end on the SingleAgentEnv pipeline as shipped (DummyVecEnv)."""
    config = shipped_config()
    if config is None:
        return None, f"skipped: {CONFIG} not found (run from the repository root)"

    from newmarket_env.train.ppo.learner import build_vec_env  # optional: needs SB3 (train extra)

    run = dataclasses.replace(config.run, vec_env="dummy", n_envs=SINGLE_ENVS)
    config = config.replaced(run=run, ppo=dataclasses.replace(config.ppo, n_steps=SINGLE_STEPS))
    rollout = SINGLE_ENVS * SINGLE_STEPS
    _model, play = ppo_player(build_vec_env(config), config, rollout)
    return play, (
        f"{CONFIG} network/opponents/PPO on the shipped agents' pipeline: {SINGLE_ENVS} SingleAgentEnv "
        f"(dummy) x {SINGLE_STEPS} steps a rollout; session = one rollout and its update"
    )


def without_logs(model):
    """``model`` with SB3's logger writing nothing (no log folders left in /tmp per row)."""
    from stable_baselines3.common.logger import Logger  # optional: needs stable-baselines3 (train extra)

    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def learner_player(model, threads: int):
    """``play`` for :func:`~newmarket_env.eval.bench.timing.measure_rounds`: one rollout of ``model`` and its
    update per call, at ``threads`` torch threads (set at every call: rows timed in turn share the process)."""
    import torch  # optional: needs torch (train extra)

    rollout = model.n_steps * model.n_envs
    fresh = [True]

    def play(seed: int) -> tuple[int, int]:
        torch.set_num_threads(threads)
        model.learn(total_timesteps=rollout, reset_num_timesteps=fresh.pop() if fresh else False)
        return rollout, 1

    return play


def tutorial_script():
    """The tutorial script as a module, from the source checkout beside the installed package; None elsewhere."""
    name = "newmarket_tutorial_train_maskable_ppo"
    path = Path(newmarket_env.__file__).resolve().parents[1] / TUTORIAL
    spec = importlib.util.spec_from_file_location(name, path) if path.is_file() else None
    if spec is None or spec.loader is None:
        return None
    loaded = sys.modules.get(name)
    if loaded is not None and loaded.__file__ == str(path):
        return loaded
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def ppo_tutorial():
    """MaskablePPO as the tutorial script trains it, at its full size."""
    why = compiled_or_why()
    script = None if why else tutorial_script()
    if script is None:
        return None, why or f"skipped: {TUTORIAL} is not beside the installed package (a source checkout has it)"
    import torch  # optional: needs torch (train extra)

    torch_default_threads()
    torch.set_num_threads(script.TORCH_THREADS)
    size = script.FULL
    model = without_logs(script.make_model(script.make_env(size.tables, seed=0), size.n_steps, size.batch_size, seed=0))
    return learner_player(model, script.TORCH_THREADS), (
        f"{TUTORIAL} full size: {size.tables} tables x {size.n_steps} steps a rollout, minibatch {size.batch_size}, "
        f"{model.n_epochs} epochs, torch {script.TORCH_THREADS} thread; session = one rollout and its update"
    )


def ppo_sb3_defaults():
    """MaskablePPO the naive way: one ``gymnasium.make`` env and every SB3 default."""
    from sb3_contrib import MaskablePPO  # optional: needs sb3-contrib (train extra)

    threads = torch_default_threads()
    env = gymnasium.make(GYMNASIUM_ID, variant="newmarket", num_players=PLAYERS, opponents=["random"])
    model = without_logs(MaskablePPO("MlpPolicy", env, seed=0))
    return learner_player(model, threads), (
        f'gymnasium.make("{GYMNASIUM_ID}", opponents=["random"]) and MaskablePPO("MlpPolicy", env): '
        f"{model.n_steps} steps a rollout, minibatch {model.batch_size}, {model.n_epochs} epochs, torch {threads} "
        "threads; session = one rollout and its update"
    )


#: Rows of this module, in table order: name -> (group, factory), as ``extras.EXTRAS``.
TRAINING_ROWS = {
    "vector_env newmarket control": ("vector_env", vector_control),
    "ppo newmarket batch": ("ppo", ppo_batch),
    "ppo newmarket single_agent": ("ppo", ppo_single_agent),
    "ppo newmarket tutorial": ("ppo", ppo_tutorial),
}
#: Rows measured only when named (``--rows``): one call takes seconds on an idle machine, minutes on a loaded one.
ON_REQUEST_ROWS = {"ppo newmarket sb3 defaults": ("ppo", ppo_sb3_defaults)}
VECTOR_GOAL = 100_000  # learner decisions/s of the vector env against compiled control (issue 11)
PPO_GOAL = 10.0  # MaskablePPO on the batch over the SingleAgentEnv pipeline, same run (issue 11)
TUTORIAL_GOALS = {"ppo newmarket batch": 1.0, "ppo newmarket sb3 defaults": 8.0}  # the tutorial over these rows


def training_targets(result) -> list:
    """The issue-11 goals of these rows that ``result`` (a BenchResult) measured."""
    found = []
    vector = result.row("vector_env newmarket control")
    if vector:
        value = vector.decisions_per_s
        found.append(
            Target(
                "vector env newmarket 4p vs compiled control, learner decisions/s",
                value,
                f">= {VECTOR_GOAL:,}",
                value >= VECTOR_GOAL,
            )
        )
    batch, single = result.row("ppo newmarket batch"), result.row("ppo newmarket single_agent")
    if batch and single:
        value = paired_ratio(batch, single)
        found.append(
            Target(
                "MaskablePPO end to end, batch / SingleAgentEnv pipeline", value, f">= {PPO_GOAL:g}x", value >= PPO_GOAL
            )
        )
    tutorial = result.row("ppo newmarket tutorial")
    for name, goal in TUTORIAL_GOALS.items():
        other = result.row(name)
        if tutorial and other:
            value = paired_ratio(tutorial, other)
            found.append(Target(f"MaskablePPO, tutorial script / {name}", value, f">= {goal:g}x", value >= goal))
    return found


def ppo_split(vec_env: str, tables: int, steps: int, rollouts: int = 2) -> dict[str, float]:
    """CPU ms per learner decision of MaskablePPO's collection and of its updates (timed apart), and the
    decisions/s end to end, with the newmarket config's network and opponents on ``tables`` x ``steps``."""
    from newmarket_env.train.ppo.learner import build_vec_env  # optional: needs SB3 (train extra)

    config = shipped_config()
    if config is None:
        raise ValueError(f"{CONFIG} not found: run from the repository root")
    run = dataclasses.replace(config.run, vec_env=vec_env, n_envs=tables)
    config = config.replaced(run=run, ppo=dataclasses.replace(config.ppo, n_steps=steps))
    model, play = ppo_player(build_vec_env(config), config, tables * steps)
    spent = {"collect_rollouts": 0.0, "train": 0.0}
    for name in spent:
        method = getattr(model, name)

        def timed(*args, _method=method, _name=name, **kwargs):
            began = time.process_time()
            try:
                return _method(*args, **kwargs)
            finally:
                spent[_name] += time.process_time() - began

        setattr(model, name, timed)
    for seed in range(rollouts):
        play(seed)
    decisions = rollouts * tables * steps
    return {
        "collect_ms": 1e3 * spent["collect_rollouts"] / decisions,
        "train_ms": 1e3 * spent["train"] / decisions,
        "per_s": decisions / (spent["collect_rollouts"] + spent["train"]),
    }


def main() -> None:
    """``python -m newmarket_env.eval.bench.training``: the figures of docs/benchmark.md's training section."""
    play, note = vector_control()
    if play is None:
        print(note)
    else:
        for _ in range(3):
            began = time.process_time()
            decisions, _ = play(0)
            print(
                f"vector env: {decisions / (time.process_time() - began):,.0f} learner decisions/s (CPU); {note}",
                flush=True,
            )
    for vec_env, tables, steps in (("dummy", SINGLE_ENVS, SINGLE_STEPS), ("batch", 64, 32), ("batch", 256, 32)):
        split = ppo_split(vec_env, tables, steps)
        print(
            f"MaskablePPO {vec_env} {tables} x {steps}: collection {split['collect_ms']:.3f} ms, updates "
            f"{split['train_ms']:.3f} ms a decision (CPU), {split['per_s']:,.0f} decisions/s end to end",
            flush=True,
        )


if __name__ == "__main__":
    main()
