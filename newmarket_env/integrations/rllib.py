"""Ray RLlib (new API stack, tested with Ray 2.60): the game as a ``MultiAgentEnv``, masked PPO, self-play.

Install with ``pip install 'newmarket-env[ray]'``. What is here:

``NewmarketMultiAgentEnv`` / :func:`env_creator`
    The AEC env as RLlib's ``MultiAgentEnv``, for ``register_env(ENV_NAME, env_creator)``. Turn-based:
    each observation dict holds only the agent to act, so RLlib asks one policy for one action per step.
    Observations use RLlib's keys, ``{"observations": <flat vector>, "action_mask": <0/1 per action, int8>}``
    (PettingZoo's singular ``"observation"`` is renamed: RLlib's masking convention reads the plural).
    Every agent gets its chip change at every step (scaled by ``reward_scale``); RLlib adds up the rewards
    of agents that are waiting for their turn. An action outside the mask raises ``IllegalActionError``
    (``illegal_action="raise"``, the only value here: RLlib records the action its module chose, so a
    replaced one would train on a move that was never played).

:class:`MaskedPPOTorchRLModule`
    PPO's default torch module with the mask applied to the logits in *every* forward pass: exploration
    (what env runners sample from), inference and training (so PPO's log-probabilities and entropy are
    those of the masked distribution). Illegal actions get ``FLOAT_MIN`` (about -3.4e38) instead of their
    logit: probability exactly 0 when sampling, never the argmax; a finite value rather than -inf, so the
    entropy and KL terms stay finite (0 * -inf would be nan).

:func:`self_play_config`
    PPO with two modules: ``"learner"`` (trained) takes one seat per episode, chosen from the episode id,
    and ``"opponent"`` (never trained, ``policies_to_train=["learner"]``) takes the other seats.
    :class:`SelfPlay` copies the learner's weights into the frozen opponent every ``refresh_every``
    iterations and counts, from the recorded episodes, actions that fell outside their masks.

:func:`vector_config` (the ``batch`` sampler of ``method: rllib_ppo``)
    Single-agent PPO on the compiled vector env (:class:`~newmarket_env.envs.vector.VectorEnv`, one
    learner seat per table, the other seats played inside the env), ``num_envs`` tables per env runner
    stepped on ``threads`` threads: RLlib's runners call it through Gymnasium's ``vector_entry_point``
    (:func:`vector_env_creator`), in Gymnasium's ``NEXT_STEP`` autoreset mode, the one their loop
    expects. Observations are RLlib's ``{"observations", "action_mask"}`` dict
    (:class:`MaskedObservations`); the module is :class:`MaskedPPOTorchRLModule`. The opponents are the
    ``opponents`` baselines (compiled: played in C) and snapshots of the learner, played in the env as
    saved agents: :class:`SnapshotOpponents` exports the learner's policy every ``refresh_every``
    iterations and hands it to every env runner (the arrays, not a path: runners on other machines write
    their own copy), ``snapshot_fraction`` of the opponent seats taking one of the newest ``max_snapshots``;
    it audits every sampled chunk's actions against their masks, as :class:`SelfPlay` does.

Pitfalls this module avoids (each has bitten RLlib users):
    * RLlib's environment pre-check steps every env with an *unmasked* random action, which a game with
      illegal actions must refuse, so the config sets ``disable_env_checking=True``; the env is checked
      by this package's own tests instead.
    * RLlib's published action-masking example masks only when the new API stack is on (with the old
      stack its module is silently ignored and illegal actions reach the env) and edits the batch in
      place; this module needs the new stack (the default in 2.60) and never mutates its input batch.
    * With ``batch_mode="truncate_episodes"`` RLlib 2.60 cuts episodes into chunks, and at the end of an
      episode it can record, for an agent whose last action was taken before the cut, that stale action
      again on the agent's final observation: a transition that never happened, whose action the
      final mask may forbid (the audit below counted 3-4 per 256 steps; none reached the env, which
      raises). Turn-based sessions are short, so the config samples complete episodes instead.

Example (a few iterations; ``examples/rllib_self_play.py`` runs it from the command line)::

    import ray
    from newmarket_env.integrations.rllib import self_play_config
    algo = self_play_config(variant="newmarket", num_players=4).build_algo()
    for _ in range(3):
        result = algo.train()
    algo.stop()
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode, VectorObservationWrapper
from gymnasium.vector.utils import batch_space
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.rllib.utils.typing import AgentID, MultiAgentDict
from ray.tune.registry import register_env

from newmarket_env.agents.saved import save_policy
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.envs.aec import raw_env
from newmarket_env.envs.learner_options import check_reward_scale
from newmarket_env.envs.masks import MASK_DTYPE
from newmarket_env.envs.vector import VectorEnv
from newmarket_env.game import actions as A
from newmarket_env.nn.sparse_input import sparse_first_layer

ENV_NAME = "newmarket_multiagent_v0"
VECTOR_ENV_NAME = "newmarket_vector_v0"  # the batch sampler's env (vector_env_creator)
OBS_KEY, MASK_KEY = "observations", "action_mask"  # RLlib's keys (its masking example reads these)
LEARNER, OPPONENT = "learner", "opponent"
#: Env config keys that are not arguments of ``raw_env``.
WRAPPER_KEYS = ("reward_scale",)
#: Metrics the SelfPlay callback logs (under result["env_runners"]).
CHECKED_METRIC, ILLEGAL_METRIC = "newmarket/actions_checked", "newmarket/illegal_actions"


class NewmarketMultiAgentEnv(MultiAgentEnv):
    """The AEC env as a turn-based RLlib ``MultiAgentEnv`` (only the agent to act is in each obs dict).

    ``config`` holds ``raw_env`` keywords (``variant``, ``num_players``, rules overrides, ``engine``) and
    ``reward_scale`` (chips are multiplied by it; default 1.0). ``observation="planes"`` is refused:
    the masked module expects the flat vector; so is ``illegal_action="replace"`` (see the module docstring).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})
        self.reward_scale = check_reward_scale(options.pop("reward_scale", 1.0))
        if options.get("observation", "flat") != "flat":
            raise ValueError(f"observation={options['observation']!r} is not allowed here; allowed: 'flat'")
        if options.get("present_forced"):  # kept simple: a forced decision teaches nothing
            raise ValueError("present_forced=True is not allowed here; allowed: False")
        if options.get("illegal_action", "raise") != "raise":
            raise ValueError(
                f"illegal_action={options['illegal_action']!r} is not allowed here; allowed: 'raise' "
                "(RLlib would train on the action its module chose, not the one played)"
            )
        self.aec = raw_env(**options)
        names: list[str] = list(self.aec.possible_agents)
        self.possible_agents: list[AgentID] = list(names)
        self.agents: list[AgentID] = []
        aec_space = self.aec.observation_space(names[0])
        assert isinstance(aec_space, gym.spaces.Dict)  # the AEC env's observation: a Dict with the mask
        mask_box = gym.spaces.Box(0, 1, shape=(A.NUM_ACTIONS,), dtype=MASK_DTYPE)
        space = gym.spaces.Dict({OBS_KEY: aec_space["observation"], MASK_KEY: mask_box})
        action: gym.Space = gym.spaces.Discrete(A.NUM_ACTIONS)
        self.observation_spaces: dict[AgentID, gym.Space] = {agent: space for agent in names}
        self.action_spaces: dict[AgentID, gym.Space] = {agent: action for agent in names}
        self.observation_space = gym.spaces.Dict({agent: space for agent in names})
        self.action_space = gym.spaces.Dict({agent: action for agent in names})

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        # RLlib seeds only the first reset; later deals come from the stream that seed started
        # (gymnasium's np_random), so a seeded run deals the same sessions again.
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**63)), options=options)
        if self.aec.game.over:  # every decision was forced: nobody can act, RLlib needs an agent to ask
            raise RuntimeError("the session ended during reset (every decision forced); use other rules")
        self.agents = list(self.possible_agents)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: MultiAgentDict):
        agent = self.aec.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"it is {agent}'s turn alone; got actions for {sorted(map(str, action_dict))}")
        action = int(action_dict[agent])
        mask = self.aec.observe(agent)["action_mask"]
        if not 0 <= action < A.NUM_ACTIONS or not mask[action]:
            legal = ", ".join(f"{a} ({A.action_text(int(a))})" for a in np.flatnonzero(mask))
            raise IllegalActionError(f"illegal action {action} for {agent}; legal actions: {legal}")
        self.aec.step(action)
        rewards = {a: self.aec.rewards[a] * self.reward_scale for a in self.aec.possible_agents}
        if self.aec.game.over:
            self.agents = []
            done = {a: True for a in self.possible_agents}
            return {}, rewards, {**done, "__all__": True}, {"__all__": False}, {}
        nxt = self.aec.agent_selection
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: {}}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seen = self.aec.observe(agent)
        return {OBS_KEY: seen["observation"], MASK_KEY: seen["action_mask"]}  # the AEC env's int8 mask


def env_creator(env_config: Mapping[str, Any] | None = None) -> NewmarketMultiAgentEnv:
    """For ``ray.tune.registry.register_env(ENV_NAME, env_creator)``."""
    return NewmarketMultiAgentEnv(env_config)


def register() -> str:
    """Register the env under :data:`ENV_NAME` (in this process; RLlib ships it to its workers)."""
    register_env(ENV_NAME, env_creator)
    return ENV_NAME


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module on ``obs["observations"]``, its logits masked by ``obs["action_mask"]``.

    Built for the env's Dict space; the networks see only the ``"observations"`` part.
    """

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and "
                f"{MASK_KEY!r}; got {observation_space}"
            )
        self.space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    #: Whether the encoders' first layers are :class:`~newmarket_env.nn.sparse_input.SparseInputLinear`
    #: (``network.input: sparse``; the same parameters, outputs and saved policy as the dense ones).
    sparse_input = False

    def setup(self) -> None:
        super().setup()
        if self.sparse_input:  # the first layer of each encoder reads the observation's nonzero entries only
            for name in ("actor_encoder", "critic_encoder"):
                encoder = getattr(self.encoder, name, None)
                if encoder is not None:
                    sparse_first_layer(encoder.net.mlp)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Exploration and inference (RLlib routes both here)."""
        inner, mask = _split(batch)
        return _masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = _split(batch)
        return _masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None):
        inner, _ = _split(batch)
        return super().compute_values(inner, embeddings)


class SparseMaskedPPOTorchRLModule(MaskedPPOTorchRLModule):
    """:class:`MaskedPPOTorchRLModule` with sparse input layers (``network.input: sparse``)."""

    sparse_input = True


def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """A shallow copy of ``batch`` whose observations are the vectors, and the mask (the input is not changed)."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, Mapping) or MASK_KEY not in obs:
        raise ValueError(f"the batch's observations carry no {MASK_KEY!r}; use NewmarketMultiAgentEnv's Dict space")
    return {**batch, Columns.OBS: obs[OBS_KEY]}, obs[MASK_KEY]


def _masked(output: dict[str, Any], mask: Any) -> dict[str, Any]:
    logits = output[Columns.ACTION_DIST_INPUTS]
    output[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
    return output


class SelfPlayMapping:
    """Policy mapping: the learner in one seat per episode, the frozen opponent in the others.

    The learner's seat is drawn for each new episode from a generator seeded with ``seed``, in the
    order the episodes are met (RLlib's episode ids are random ``uuid4``s: a seat hashed from them
    would differ between two runs of one seed). Each env runner process has its own copy of the
    mapping, so with several runners they draw the same sequence of seats.

    >>> mapping = SelfPlayMapping(4, seed=0)
    >>> class Episode: id_ = "abc"
    >>> sorted(mapping(f"player_{i}", Episode()) for i in range(4))
    ['learner', 'opponent', 'opponent', 'opponent']
    """

    KEPT = 4096  # episodes whose seat is remembered (RLlib maps each agent of an episode once)

    def __init__(self, num_players: int, seed: int | None = None) -> None:
        self.num_players, self.seed = num_players, seed
        self._rng: np.random.Generator | None = None
        self._seats: dict[str, int] = {}

    def learner_seat(self, episode_id: str) -> int:
        """The learner's seat in episode ``episode_id`` (drawn the first time the episode is met)."""
        if self._rng is None:  # made here, not in __init__: RLlib ships the mapping to its runners by pickle
            self._rng = np.random.default_rng(self.seed)
        if episode_id not in self._seats:
            if len(self._seats) >= self.KEPT:
                self._seats.pop(next(iter(self._seats)))
            self._seats[episode_id] = int(self._rng.integers(self.num_players))
        return self._seats[episode_id]

    def reseed(self, seed: int) -> None:
        """Draw the seats of the episodes met from now on from a generator seeded with ``seed``."""
        self.seed, self._rng = seed, None
        self._seats.clear()

    def __call__(self, agent_id: AgentID, episode: Any, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[1])
        return LEARNER if seat == self.learner_seat(str(episode.id_)) else OPPONENT


class SelfPlay(RLlibCallback):
    """Freezes a copy of the learner as the opponent every ``refresh_every`` iterations; audits the masks.

    The audit reads each recorded episode (independently of the env's own check): every action taken
    must be allowed by the mask of the observation it was taken on. The counts are logged as
    ``result["env_runners"]["newmarket/actions_checked"]`` and ``[...]["newmarket/illegal_actions"]``.
    """

    def __init__(self, refresh_every: int = 1) -> None:
        super().__init__()
        self.refresh_every = refresh_every

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        self._freeze(algorithm)  # the opponent starts as the (untrained) learner

    def on_episode_start(self, *, env_runner: Any = None, **kwargs: Any) -> None:
        # With batch_mode="complete_episodes" RLlib 2.60 resets the env with the runner's seed before
        # *every* episode (its "initial reset" flag is set again after each sample call), so a seeded run
        # would deal one session over and over. Once an episode has started from the seeded reset, the
        # runner forgets the seed: later resets continue the env's own stream (a new deal each time).
        if env_runner is not None:
            env_runner._seed = None

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        if self.refresh_every and algorithm.iteration % self.refresh_every == 0:
            self._freeze(algorithm)
            result["opponent_frozen_at"] = algorithm.iteration

    @staticmethod
    def _freeze(algorithm: Any) -> None:
        weights = algorithm.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {OPPONENT: weights}}}})
        # The env runners get the copy now. set_state's own sync skips them (RLlib 2.60): their weights'
        # sequence number is already the learner group's, so the opponent that samples the next
        # iteration would still be the previous copy, one iteration late.
        algorithm.env_runner_group.foreach_env_runner(
            functools.partial(_set_module, module_id=OPPONENT, weights=weights), local_env_runner=True
        )

    def on_episode_end(
        self, *, episode: Any, prev_episode_chunks: list | None = None, metrics_logger: Any = None, **kwargs: Any
    ) -> None:
        _audit([*(prev_episode_chunks or []), episode], metrics_logger)


class MaskedObservations(VectorObservationWrapper):
    """A :class:`~newmarket_env.envs.vector.VectorEnv`'s observations as RLlib's masked dict:
    ``{"observations": (num_envs, 936), "action_mask": (num_envs, 79) int8}`` (the AEC sampler's mask dtype)."""

    def __init__(self, env: VectorEnv) -> None:
        super().__init__(env)
        mask_box = gym.spaces.Box(0, 1, shape=(A.NUM_ACTIONS,), dtype=MASK_DTYPE)
        self.single_observation_space = gym.spaces.Dict({OBS_KEY: env.single_observation_space, MASK_KEY: mask_box})
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def observations(self, observations: np.ndarray) -> dict[str, np.ndarray]:  # type: ignore[override]
        masks = self.env.action_masks()  # type: ignore[attr-defined]  # the VectorEnv's, under Gymnasium's type
        return {OBS_KEY: observations, MASK_KEY: masks.astype(MASK_DTYPE)}


def vector_env_creator(env_config: Mapping[str, Any] | None = None) -> MaskedObservations:
    """The batch sampler's env: a :class:`VectorEnv` of ``env_config`` (its keywords; ``num_envs`` given by
    RLlib) in ``NEXT_STEP`` autoreset, with masked dict observations; for ``register_env``."""
    options = dict(env_config or {})
    options.pop("worker_index", None), options.pop("num_workers", None)  # RLlib's EnvContext, not ours
    return MaskedObservations(VectorEnv(**options, autoreset_mode=AutoresetMode.NEXT_STEP))


def policy_layers(module: Any, activation: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) arrays of ``module``'s actor encoder and ``pi`` head, input first: the saved-agent
    network (RLlib's default PPO module with ``vf_share_layers=False`` is hidden layers, each followed by
    the activation, then one linear layer of logits).

    ``ValueError`` if the module is not ``Linear``/``activation`` pairs then one ``Linear``.
    """
    encoder = list(module.encoder.actor_encoder.net.mlp)
    head = list(module.pi.net.mlp)
    kind = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    hidden = [encoder[i : i + 2] for i in range(0, len(encoder), 2)]
    shapes_ok = all(
        len(pair) == 2 and isinstance(pair[0], torch.nn.Linear) and type(pair[1]) is kind for pair in hidden
    )
    if not shapes_ok or len(head) != 1 or not isinstance(head[0], torch.nn.Linear):
        raise ValueError(
            f"the RLModule's policy is not an MLP of {activation} hidden layers and one linear head "
            f"(encoder {[type(m).__name__ for m in encoder]}, head {[type(m).__name__ for m in head]})"
        )
    linears = [pair[0] for pair in hidden] + head
    return [
        (m.weight.detach().cpu().numpy().astype(np.float32), m.bias.detach().cpu().numpy().astype(np.float32))
        for m in linears
    ]


class SnapshotOpponents(RLlibCallback):
    """The batch sampler's self-play: the learner's policy, exported every ``refresh_every`` iterations (and
    once at the start), joins the snapshots every env runner's vector env plays (the newest
    ``max_snapshots``); audits the masks as :class:`SelfPlay` does."""

    def __init__(self, refresh_every: int = 1, max_snapshots: int = 5, activation: str = "tanh") -> None:
        super().__init__()
        self.refresh_every, self.max_snapshots, self.activation = refresh_every, max_snapshots, activation

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        self._snapshot(algorithm)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        if self.refresh_every and algorithm.iteration % self.refresh_every == 0:
            self._snapshot(algorithm)
            result["opponent_frozen_at"] = algorithm.iteration

    def _snapshot(self, algorithm: Any) -> None:
        layers = policy_layers(algorithm.get_module(DEFAULT_MODULE_ID), self.activation)
        install = functools.partial(
            _add_snapshot,
            layers=layers,
            activation=self.activation,
            iteration=int(algorithm.iteration),
            keep=self.max_snapshots,
        )
        algorithm.env_runner_group.foreach_env_runner(install, local_env_runner=True)

    def on_sample_end(self, *, samples: list, metrics_logger: Any = None, **kwargs: Any) -> None:  # type: ignore[override]
        # Every chunk this sample returns, done or cut, as the learner gets it. (Not at each episode's end
        # with its earlier chunks: with a vector env, RLlib 2.60's copies of those kept for its metrics
        # can show the last action of a cut chunk twice, though the chunk the learner got shows it once.)
        _audit(samples, metrics_logger)


def _add_snapshot(env_runner: Any, layers: list, activation: str, iteration: int, keep: int) -> None:
    """On an env runner: the learner's policy as a saved agent in a folder of this process, played from the
    next session on (the newest ``keep`` of them)."""
    env = getattr(env_runner, "env", None)
    if env is None:  # a runner without an env (RLlib's local runner when remote ones sample)
        return
    vector = env.unwrapped
    folder = getattr(env_runner, "_newmarket_snapshots", None)
    if folder is None:
        folder = env_runner._newmarket_snapshots = tempfile.mkdtemp(prefix="newmarket_snapshots_")
    path = Path(folder) / f"snapshot_{iteration:06d}_{os.getpid()}.npz"
    save_policy(path, layers, vector.rules, vector.variant, activation, {"iteration": iteration})
    paths = sorted(str(p) for p in Path(folder).glob("snapshot_*.npz"))
    for old in paths[:-keep]:
        Path(old).unlink(missing_ok=True)
    vector.set_snapshots(paths[-keep:])


def _audit(chunks: Sequence[Any], metrics_logger: Any) -> None:
    """Count every recorded action and those outside the mask of the observation they were taken on."""
    checked = illegal = 0
    for chunk in chunks:
        singles = chunk.agent_episodes.values() if hasattr(chunk, "agent_episodes") else [chunk]
        for single in singles:
            actions = np.asarray(single.get_actions(), dtype=np.int64).reshape(-1)
            if not len(actions):  # an agent that never acted in this chunk
                continue
            masks = _masks_of(single.get_observations())[: len(actions)]
            taken = masks[np.arange(len(actions)), actions]
            checked += len(actions)
            illegal += int(np.sum(taken <= 0))
    if metrics_logger is not None:
        metrics_logger.log_value(CHECKED_METRIC, checked, reduce="sum")
        metrics_logger.log_value(ILLEGAL_METRIC, illegal, reduce="sum")


def _set_module(env_runner: Any, module_id: str, weights: Mapping[str, Any]) -> None:
    """Give an env runner's module ``module_id`` the ``weights`` it has (an inference-only module has fewer)."""
    module = env_runner.module[module_id]
    kept = module.state_dict().keys()
    module.set_state({key: value for key, value in weights.items() if key in kept})


def _masks_of(observations: Any) -> np.ndarray:
    """The masks of an episode's observations, whether still a list of dicts or already batched."""
    if isinstance(observations, Mapping):
        return np.asarray(observations[MASK_KEY])
    return np.stack([np.asarray(obs[MASK_KEY]) for obs in observations])


def self_play_config(
    variant: str = "newmarket",
    num_players: int = 4,
    rules: Mapping[str, Any] | None = None,
    reward_scale: float = 0.1,
    hidden: tuple[int, ...] = (128, 128),
    activation: str = "tanh",
    num_env_runners: int = 0,
    batch_size: int = 1024,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    lr: float = 3e-4,
    refresh_every: int = 5,
    seed: int | None = 0,
    network_input: str = "dense",
) -> PPOConfig:
    """PPO self-play: the masked module as learner and frozen opponent; build with ``.build_algo()``.

    Sizes are small by default (a few iterations train on a laptop); raise ``num_env_runners`` and
    ``batch_size`` on a cluster. ``seed`` seeds RLlib (torch, env runners). ``activation`` is the
    hidden layers' (RLlib's ``fcnet_activation``: ``"tanh"`` or ``"relu"``); ``network_input``: ``"sparse"``
    or ``"dense"`` first layers (:func:`module_class`).
    """
    register()
    env_config = {"variant": variant, "num_players": num_players, **dict(rules or {}), "reward_scale": reward_scale}
    players = len(NewmarketMultiAgentEnv(env_config).possible_agents)  # also checks the env config now
    module = RLModuleSpec(module_class=module_class(network_input))
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1, batch_mode="complete_episodes")
        .learners(num_learners=0)
        .multi_agent(
            policies={LEARNER, OPPONENT},
            policy_mapping_fn=SelfPlayMapping(players, seed),
            policies_to_train=[LEARNER],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module, OPPONENT: module}),
            model_config=DefaultModelConfig(
                fcnet_hiddens=list(hidden), fcnet_activation=activation, vf_share_layers=False
            ),
        )
        .training(
            train_batch_size_per_learner=batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=1.0,
        )
        # RLlib calls what it is given with no arguments: a partial works though its hint says a class
        .callbacks(functools.partial(SelfPlay, refresh_every=refresh_every))  # type: ignore[arg-type]
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def module_class(network_input: str = "dense") -> type[MaskedPPOTorchRLModule]:
    """The masked module whose encoders read the observation sparsely (``"sparse"``) or densely (``"dense"``)."""
    if network_input not in ("sparse", "dense"):
        raise ValueError(f"network_input={network_input!r} is not allowed; allowed: sparse, dense")
    return SparseMaskedPPOTorchRLModule if network_input == "sparse" else MaskedPPOTorchRLModule


def vector_config(
    variant: str = "newmarket",
    num_players: int = 4,
    rules: Mapping[str, Any] | None = None,
    reward_scale: float = 0.1,
    opponents: Sequence[str] = ("random",),
    snapshot_fraction: float = 0.5,
    max_snapshots: int = 5,
    seat: str | int = "random",
    num_envs: int = 64,
    threads: int | None = None,
    hidden: tuple[int, ...] = (128, 128),
    activation: str = "tanh",
    num_env_runners: int = 0,
    batch_size: int = 4096,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    lr: float = 3e-4,
    refresh_every: int = 5,
    seed: int | None = 0,
    network_input: str = "dense",
) -> PPOConfig:
    """PPO on the compiled vector env (see the module docstring); build with ``.build_algo()``.

    ``opponents`` (compiled baselines or saved-agent paths) fill the seats the learner and the snapshots
    do not; ``num_envs`` tables per env runner (``num_env_runners`` of them; 0 samples in this process),
    stepped on ``threads`` threads (None: the machine's cores). ``batch_size`` is in learner decisions
    (every env step is one). ``network_input``: ``"sparse"`` or ``"dense"`` first layers (:func:`module_class`).
    """
    register_env(VECTOR_ENV_NAME, vector_env_creator)
    env_config = {
        "variant": variant,
        "num_players": num_players,
        **dict(rules or {}),
        "reward_scale": reward_scale,
        "opponents": list(opponents),
        "snapshot_fraction": snapshot_fraction,
        "seat": seat,
        "threads": threads,
    }
    vector_env_creator({**env_config, "num_envs": 1}).close()  # checks the env config now, in one line
    config = (
        PPOConfig()
        .environment(VECTOR_ENV_NAME, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs,
            gym_env_vectorize_mode="vector_entry_point",  # our VectorEnv, not num_envs copies of one table
            rollout_fragment_length="auto",
            batch_mode="truncate_episodes",
        )
        .learners(num_learners=0)
        .rl_module(
            rl_module_spec=RLModuleSpec(module_class=module_class(network_input)),
            model_config=DefaultModelConfig(
                fcnet_hiddens=list(hidden), fcnet_activation=activation, vf_share_layers=False
            ),
        )
        .training(
            train_batch_size_per_learner=batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=1.0,
        )
        .callbacks(
            functools.partial(  # type: ignore[arg-type]
                SnapshotOpponents, refresh_every=refresh_every, max_snapshots=max_snapshots, activation=activation
            )
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config
