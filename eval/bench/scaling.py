"""Workloads of training on every core and past one machine: threads in the batch, the sparse input layer,
DMC's actors, RLlib's samplers. Each figure is a ratio of two rows measured side by side in one process.

- ``vector_env newmarket control, N thread(s)``: :class:`~newmarket_env.envs.vector.VectorEnv` of
  ``TABLES`` tables against compiled ``control`` (the ``vector_env newmarket control`` row's workload) with
  the batch stepping its tables on 1 and on 2 threads; timed on the wall clock (CPU time would add the
  threads up). Target: 2 threads >= 1.6x 1 thread on a 2-core machine.
- ``ppo newmarket batch sparse`` and ``... dense``: the ``ppo newmarket batch`` workload (MaskablePPO, the
  shipped config's network and opponents, 256 tables x 32 steps a rollout and its update) with
  ``network.input`` sparse and dense, the tables on one thread (CPU time is then the work's).
- ``dmc newmarket sparse`` and ``... dense``: one iteration of ``configs/newmarket_dmc.yaml`` (its network,
  opponents and minibatches; ``DMC_STATES`` recorded decisions, fitted with the iteration before, as
  ``dmc.window: 2`` does) per call: the actor's play on the compiled batch and the learner's fit.
  Target: DMC's recorded decisions per minute, sparse >= 3x dense.
- Measured only when named (``newmarket bench --rows ...``; each starts Ray):
  ``rllib_ppo newmarket batch`` and ``rllib_ppo newmarket aec``: one ``algo.train()`` iteration of
  ``configs/newmarket_rllib_ppo.yaml`` with each sampler, a decision being one of the learner's (RLlib's
  ``num_module_steps_sampled``), CPU time of this process (the env runner samples in it,
  ``num_env_runners: 0``). Target: batch >= 30x aec (RLlib PPO learner decisions in 10 minutes).
  ``dmc ray 1 actor`` and ``dmc ray 2 actors``: the actors' play of one iteration (the config's own
  ``dmc.states``, 20,000 recorded decisions, as a run plays them) on a local two-node Ray cluster
  (``ray.cluster_utils.Cluster``), one Ray actor against two (one per node), wall clock. Target: two actors >= 1.6x one.

Every row that needs Ray runs on the bench's own two-node cluster, started once: the rows are built
before any is measured, so they share it (each node counts two CPUs in Ray's accounting, so the three
actors of the two DMC rows are placed at once; the rows are measured in turns, one playing at a time).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.eval.bench.timing import Target, paired_ratio
from newmarket_env.eval.bench.training import (
    CONFIG,
    PPO_STEPS,
    PPO_TABLES,
    compiled_or_why,
    ppo_player,
    shipped_config,
    vector_control,
)
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import load_config

DMC_CONFIG = "configs/newmarket_dmc.yaml"
RLLIB_CONFIG = "configs/newmarket_rllib_ppo.yaml"
DMC_STATES = 8192  # recorded decisions per measured DMC iteration
THREADS_GOAL, PPO_SPARSE_GOAL, DMC_SPARSE_GOAL, RLLIB_GOAL, RAY_ACTORS_GOAL = 1.6, 2.0, 3.0, 30.0, 1.6
PPO_BEFORE = 5198  # MaskablePPO on the batch, learner decisions/s, idle machine, before sparse input (issue 39)


def _threads(count: int):
    def make():
        return vector_control(threads=count)

    return make


def _ppo(network_input: str):
    def make():
        why = compiled_or_why()
        config = shipped_config()
        if why or config is None:
            return None, why or f"skipped: {CONFIG} not found (run from the repository root)"
        from newmarket_env.train.ppo.learner import build_vec_env  # optional: needs SB3 (train extra)

        run = dataclasses.replace(config.run, n_envs=PPO_TABLES, vec_env="batch", threads=1)
        config = config.replaced(
            run=run,
            ppo=dataclasses.replace(config.ppo, n_steps=PPO_STEPS),
            network=dataclasses.replace(config.network, input=network_input),
        )
        _model, play = ppo_player(build_vec_env(config), config, PPO_TABLES * PPO_STEPS)
        return play, (
            f"{CONFIG} network/opponents/PPO, network.input {network_input}, {PPO_TABLES} tables x {PPO_STEPS} steps "
            "a rollout on 1 thread; session = one rollout and its update"
        )

    return make


def _dmc_config(network_input: str, states: int | None = DMC_STATES, **dmc: Any):
    """The DMC config of the rows: ``states`` decisions an iteration (None: the config's own ``dmc.states``)."""
    path = Path(DMC_CONFIG)
    if not path.is_file():
        return None
    config = load_config(path)
    run = dataclasses.replace(config.run, threads=1)
    return config.replaced(
        run=run,
        dmc=dataclasses.replace(config.dmc, states=states or config.dmc.states, **dmc),
        network=dataclasses.replace(config.network, input=network_input),
    )


def _dmc(network_input: str):
    def make():
        why = compiled_or_why()
        config = _dmc_config(network_input)
        if why or config is None:
            return None, why or f"skipped: {DMC_CONFIG} not found (run from the repository root)"
        import torch  # optional: needs torch (train extra)

        from newmarket_env.train.dmc.actors import actor_pool, numpy_weights  # optional: needs torch
        from newmarket_env.train.dmc.fit import fit_q, q_loss, q_network  # optional: needs torch

        torch.set_num_threads(config.run.torch_threads)
        rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
        torch.manual_seed(0)
        net = q_network(config.dmc.net_arch, config.dmc.activation, network_input)
        optimizer = torch.optim.Adam(net.parameters(), lr=config.dmc.learning_rate)
        actors = actor_pool(config, rules)
        previous: list[Any] = []

        def play(seed: int) -> tuple[int, int]:
            torch.set_num_threads(config.run.torch_threads)
            states = actors.collect(numpy_weights(net), seed)
            q_loss(net, states.obs, states.actions, states.returns)
            window = [states, *previous[-1:]]  # dmc.window 2: this iteration's decisions and the last one's
            obs, actions, returns = (
                np.concatenate([getattr(s, name) for s in window]) for name in ("obs", "actions", "returns")
            )
            fit_q(net, optimizer, obs, actions, returns, config.dmc.epochs, config.dmc.batch_size, seed)
            previous[:] = [states]
            return DMC_STATES, 1

        return play, (
            f"{DMC_CONFIG}: one iteration of {DMC_STATES} recorded decisions ({config.dmc.tables} tables, 1 thread) "
            f"and its fit, network.input {network_input}; decision = a recorded one; session = an iteration"
        )

    return make


def _rllib(sampler: str):
    def make():
        path = Path(RLLIB_CONFIG)
        if not path.is_file():
            return None, f"skipped: {RLLIB_CONFIG} not found (run from the repository root)"
        try:
            import ray  # noqa: F401 (optional: needs Ray, the ray extra)
        except ImportError:
            return None, "skipped: Ray is not installed (pip install 'newmarket-env[ray]')"
        import torch  # optional: needs torch (train extra)

        from newmarket_env.train.rllib_ppo.learner import algorithm_config, learner_module  # optional: needs Ray

        config = load_config(path)
        config = config.replaced(rllib=dataclasses.replace(config.rllib, sampler=sampler))
        _two_nodes()  # the Ray every row of the bench shares (num_env_runners 0: it samples in this process)
        torch.set_num_threads(config.run.torch_threads)
        algo = algorithm_config(config).build_algo()
        module = learner_module(config)

        def play(seed: int) -> tuple[int, int]:
            from threadpoolctl import threadpool_limits  # optional: needs threadpoolctl (train extra)

            with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):  # as train_rllib_ppo does
                result = algo.train()
            return int(result["env_runners"]["num_module_steps_sampled"].get(module, 0)), 1

        return play, (
            f"{RLLIB_CONFIG} with rllib.sampler {sampler}: one algo.train() iteration; decision = one of the learner's"
        )

    return make


_CLUSTER: list[Any] = []  # the bench's own two-node Ray cluster, started once for every Ray row
#: CPUs each node of it counts: the 1-actor and the 2-actor rows' actors (one CPU each) are placed at once.
NODE_CPUS = 2


def _two_nodes():
    if not _CLUSTER:
        import ray  # optional: needs Ray (ray extra)
        from ray.cluster_utils import Cluster  # optional: needs Ray (ray extra)

        cluster = Cluster()
        for _ in range(2):
            cluster.add_node(num_cpus=NODE_CPUS, object_store_memory=200 * 1024 * 1024, include_dashboard=False)
        cluster.wait_for_nodes()
        if ray.is_initialized():
            ray.shutdown()
        ray.init(address=cluster.address)
        _CLUSTER.append(cluster)
    return _CLUSTER[0]


def _ray_actors(actors: int):
    def make():
        why = compiled_or_why()
        # the config's own iteration: the per-iteration costs (the weights sent, the batches gathered) weigh
        # on the actors' share as they do in a run (with 8,192 decisions a call, two actors gave 1.54x)
        config = _dmc_config("sparse", states=None, actors=actors, backend="ray")
        if why or config is None:
            return None, why or f"skipped: {DMC_CONFIG} not found (run from the repository root)"
        try:
            import ray  # noqa: F401 (optional: needs Ray, the ray extra)
        except ImportError:
            return None, "skipped: Ray is not installed (pip install 'newmarket-env[ray]')"
        import torch  # optional: needs torch (train extra)

        from newmarket_env.train.dmc.actors import RayActors, numpy_weights  # optional: needs torch
        from newmarket_env.train.dmc.fit import q_network  # optional: needs torch

        _two_nodes()
        rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
        torch.manual_seed(0)
        weights = numpy_weights(q_network(config.dmc.net_arch, config.dmc.activation, "sparse"))
        pool = RayActors(config, rules)

        def play(seed: int) -> tuple[int, int]:
            return len(pool.collect(weights, seed).actions), 1

        return play, (
            f"{DMC_CONFIG}'s actors, {actors} Ray actor(s) on a local two-node cluster (one actor a node), "
            f"{config.dmc.states} recorded decisions a call (the config's dmc.states); wall clock"
        )

    return make


SCALING_ROWS = {
    "vector_env newmarket control, 1 thread": ("vector_env", _threads(1)),
    "vector_env newmarket control, 2 threads": ("vector_env", _threads(2)),
    "ppo newmarket batch sparse": ("ppo", _ppo("sparse")),
    "ppo newmarket batch dense": ("ppo", _ppo("dense")),
    "dmc newmarket sparse": ("dmc", _dmc("sparse")),
    "dmc newmarket dense": ("dmc", _dmc("dense")),
}
SCALING_ON_REQUEST = {
    "rllib_ppo newmarket batch": ("rllib", _rllib("batch")),
    "rllib_ppo newmarket aec": ("rllib", _rllib("aec")),
    "dmc ray 1 actor": ("dmc", _ray_actors(1)),
    "dmc ray 2 actors": ("dmc", _ray_actors(2)),
}
#: Rows timed on the wall clock whatever ``--clock`` says: their work runs on several threads or processes.
WALL_CLOCK_ROWS = (
    "vector_env newmarket control, 1 thread",
    "vector_env newmarket control, 2 threads",
    "dmc ray 1 actor",
    "dmc ray 2 actors",
)


def scaling_targets(result) -> list[Target]:
    """The issue-39 goals of these rows that ``result`` (a BenchResult) measured."""
    found = []
    pairs = [
        ("vector_env newmarket control, 2 threads", "vector_env newmarket control, 1 thread", THREADS_GOAL,
         "vector env vs compiled control, 2 threads / 1 thread (wall clock)"),
        ("ppo newmarket batch sparse", "ppo newmarket batch dense", PPO_SPARSE_GOAL,
         "MaskablePPO end to end on the batch, network.input sparse / dense"),
        ("dmc newmarket sparse", "dmc newmarket dense", DMC_SPARSE_GOAL,
         "DMC recorded decisions per minute, network.input sparse / dense"),
        ("rllib_ppo newmarket batch", "rllib_ppo newmarket aec", RLLIB_GOAL,
         "RLlib PPO learner decisions, rllib.sampler batch / aec"),
        ("dmc ray 2 actors", "dmc ray 1 actor", RAY_ACTORS_GOAL,
         "DMC on a two-node local Ray cluster, 2 actors / 1 actor recorded decisions/s"),
    ]  # fmt: skip
    for mine, theirs, goal, name in pairs:
        row, other = result.row(mine), result.row(theirs)
        if row and other:
            value = paired_ratio(row, other)
            found.append(Target(name, value, f">= {goal:g}x", value >= goal))
    sparse = result.row("ppo newmarket batch sparse")
    if sparse:
        value = sparse.decisions_per_s
        goal = 2 * PPO_BEFORE
        name = "MaskablePPO on the batch, sparse, learner decisions/s"
        found.append(Target(name, value, f">= {goal:,}", value >= goal))
    return found
