"""The PettingZoo AEC environment: a thin adapter over an engine's game.

The game is either engine's (:class:`~newmarket_env.engine.protocol.EngineGame`:
the reference ``Game`` or the compiled ``FastGame``); ``observation/engines.py`` gives
its class and encoder together, so observing has one path for both.

Whose turn it is comes from the engine (the holder of the next card, the
dealer, the bidder), never from a fixed cycle. Rewards are chip changes: at
every step each agent is rewarded with the change of its balance, so the sum of
an agent's rewards over a session is its final balance minus its start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.protocol import EngineGame
from newmarket_env.engine.record import session_record
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.envs.masks import ILLEGAL_ACTION_KEY, MASK_DTYPE, check_illegal_action, replacement
from newmarket_env.game import actions as A
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.encode import ENCODINGS, flat_to_planes, static_part
from newmarket_env.observation.engines import choose_engine
from newmarket_env.observation.layout import CHIP_CLIP
from newmarket_env.observation.state import state_static_part
from newmarket_env.observation.state_layout import STATE_SIZE
from newmarket_env.render.picture import table_picture
from newmarket_env.render.text import render_table

ENV_NAME = "newmarket_v0"


def _check_seed(seed: Any) -> int | None:
    """``None`` or an int (numpy ints too, as for actions); anything else is refused in one line."""
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))):
        return None if seed is None else int(seed)
    raise ValueError(f"reset seed={seed!r} is not allowed; allowed: None or an int")


class raw_env(AECEnv):
    """Newmarket, Michigan, Newbury and their historic rule sets as a PettingZoo AEC env.

    ``variant`` names a preset of docs/rules.md; ``num_players`` and any rules
    parameter may be given as keywords. Env options (not rules):
    ``observation`` (``"flat"`` or ``"planes"``), ``present_forced`` (also ask
    agents for decisions with a single legal action), ``render_mode``
    (``"human"`` and ``"ansi"``: text; ``"rgb_array"``: an ``H x W x 3`` uint8
    picture, see :mod:`newmarket_env.render.picture`), ``render_all_hands`` (draw every
    hand and the dead hand instead of the acting seat's view) and
    ``engine`` (``"auto"``: the compiled engine when it is built, else the
    pure-Python reference; ``"compiled"``; ``"python"``; both play identical
    sessions) and ``illegal_action`` (``"raise"``, the default: an action that is not
    legal raises :class:`~newmarket_env.engine.types.IllegalActionError` and changes
    nothing; ``"replace"``: the lowest legal action is played instead and the acting
    agent's info holds ``illegal_action=True`` until its next step; see
    :mod:`newmarket_env.envs.masks`).

    ``state()`` and ``state_space`` are PettingZoo's global state, for training only (a centralised
    critic): every hand, the dead hand, the table and the chips (docs/observation.md, "The privileged
    state"); ``state_for(agent)`` is the same with seats counted from that agent's. Agents never get it.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        variant: str = "newmarket",
        num_players: int | None = None,
        render_mode: str | None = None,
        observation: str = "flat",
        present_forced: bool = False,
        engine: str = "auto",
        render_all_hands: bool = False,
        illegal_action: str = "raise",
        **overrides: Any,
    ) -> None:
        super().__init__()
        self.rules = make_rules(variant, num_players, **overrides)
        self.illegal_action = check_illegal_action(illegal_action)
        self._replace_illegal = illegal_action == "replace"
        self.engine = choose_engine(engine)
        self.variant = variant
        if observation not in ENCODINGS:
            raise ValueError(f"observation={observation!r} is unknown; allowed: {', '.join(ENCODINGS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is unknown; allowed: None, 'human', 'ansi', 'rgb_array'")
        self.observation_kind = observation
        if not isinstance(present_forced, (bool, np.bool_)):
            # bool("no") is True: a string or a number here is a mistake, not a wish.
            raise ValueError(f"present_forced={present_forced!r} is not allowed; allowed: True or False")
        self.present_forced = bool(present_forced)
        self.render_mode = render_mode
        self.render_all_hands = bool(render_all_hands)
        self.possible_agents = [f"player_{i}" for i in range(self.rules.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._static = static_part(self.rules)
        shape = ENCODINGS[observation]
        obs_box = spaces.Box(low=-CHIP_CLIP, high=CHIP_CLIP, shape=shape, dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=MASK_DTYPE)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self._state_static = state_static_part(self.rules)
        #: PettingZoo's global-state space: the privileged state, for training only.
        self.state_space = spaces.Box(low=-CHIP_CLIP, high=CHIP_CLIP, shape=(STATE_SIZE,), dtype=np.float32)
        self._game: EngineGame | None = None

    @property
    def game(self) -> EngineGame:
        """The session being played (either engine's game); a one-line error before the first ``reset``."""
        if self._game is None:
            raise RuntimeError("the env has no game yet; call reset() first")
        return self._game

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a session; ``options={"deals": [...]}`` fixes the cards (docs/contract.md)."""
        seed = _check_seed(seed)
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(
                f"reset options={options!r} is not allowed; allowed: None or a dict such as {{'deals': [...]}}"
            )
        # Like Gymnasium envs, other option keys are ignored (PettingZoo's api_test passes some).
        deals = (options or {}).get("deals") or ()
        if not isinstance(deals, (list, tuple)):
            raise ValueError(
                f"reset option 'deals' must be a list of deals, e.g. [{{'dealer': 0, 'hands': ..., "
                f"'dead': ...}}]; got {deals!r}"
            )
        # Build the new game first: a bad deal raises here and leaves the env as it was.
        game = self.engine.game_class(self.rules, seed=seed, deals=deals, present_forced=self.present_forced)
        self._game = game
        self.agents = list(self.possible_agents)
        self._seen_balances = [self.rules.starting_chips] * game.n
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {
            a: {"action_mask": np.zeros(A.NUM_ACTIONS, dtype=MASK_DTYPE)} for a in self.agents
        }
        self._replaced: set[str] = set()  # agents whose last action was replaced (illegal_action="replace")
        self._masked_seat = NOBODY  # the seat whose action mask is not all zero
        self._rewards_nonzero = False  # whether self.rewards holds a non-zero value
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        # Stakes paid while resetting reach the rewards at the first step: PettingZoo
        # expects zero rewards right after reset.
        self._after_change(reward=False)

    # ------------------------------------------------------------------ step
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int and (  # the common case first: a plain int skips the other checks
            action is None or isinstance(action, bool) or not isinstance(action, (int, np.integer))
        ):
            legal = ", ".join(f"{a} ({A.action_text(a)})" for a in self.game.legal)
            raise IllegalActionError(f"action {action!r} for {agent} is not an action id; legal actions: {legal}")
        try:
            self.game.apply(int(action))  # raises IllegalActionError with the game unchanged
        except IllegalActionError:
            if not self._replace_illegal:
                raise
            self.game.apply(replacement(self.game.legal))
            self._replaced.add(agent)
        else:
            self._replaced.discard(agent)
        self._cumulative_rewards[agent] = 0.0
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def _after_change(self, reward: bool = True) -> None:
        """Bring rewards, terminations, the agent to act and the masks up to date after the game moved.

        Called at every step, so it does only the work that changed (docs/benchmark.md, "The AEC
        env's own cost"): rewards are rewritten only when a balance moved (or to clear the last
        non-zero ones), and only the seats whose mask changes get a new one.
        """
        game = self._game
        assert game is not None  # reset() set it before any change
        if game.over and not reward:
            # The whole session ended inside reset (every decision was forced): no step
            # will follow to pay its chips out, so they are rewarded now, and the dead
            # steps start from the first agent.
            reward = True
            self.agent_selection = self.possible_agents[0]
        if reward:
            self._pay_rewards(game.balances)
        self._obs_cache = {}
        if game.over:
            for agent in self.agents:
                self.terminations[agent] = True
            acting = NOBODY
        else:
            acting = game.to_act
            self.agent_selection = self.possible_agents[acting]
        self._update_masks(game, acting)

    def _pay_rewards(self, balances: list[int]) -> None:
        """Reward each agent with its balance's change since the last step, and add it to the cumulative rewards.

        Most steps move no chips: then the rewards stay (or become) all zero and nothing is
        added, which is what the full computation would give.
        """
        if balances == self._seen_balances:
            if self._rewards_nonzero:
                for agent in self.possible_agents:
                    self.rewards[agent] = 0.0
                self._rewards_nonzero = False
            return
        seen = self._seen_balances
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(balances[seat] - seen[seat])
        self._seen_balances = list(balances)  # the reference engine's list changes in place
        self._rewards_nonzero = True
        self._accumulate_rewards()

    def _update_masks(self, game: EngineGame, acting: int) -> None:
        """Give the seat to act its legal mask and every other seat an all-zero one.

        Only the masks that change get a new array (the seat that held the legal mask and the
        seat to act now; every seat after reset), so a step allocates one or two, not one per
        seat. Masks already handed out are never written to.
        """
        infos, agents = self.infos, self.possible_agents
        held = self._masked_seat
        if held != NOBODY and held != acting:
            infos[agents[held]] = {"action_mask": np.zeros(A.NUM_ACTIONS, dtype=MASK_DTYPE)}
        if acting != NOBODY:
            infos[agents[acting]] = {"action_mask": self.engine.mask(game)}
        self._masked_seat = acting
        if self._replace_illegal:
            # Only the info dicts just made can change their flag: the agent that just stepped always gets one.
            for agent in agents:
                infos[agent][ILLEGAL_ACTION_KEY] = agent in self._replaced

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cached = self._obs_cache.get(agent)
        if cached is None:
            if agent not in self._seat:
                raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
            flat = self.engine.encode(self.game, self._seat[agent], self._static)
            obs = flat if self.observation_kind == "flat" else flat_to_planes(flat)
            cached = {"observation": obs, "action_mask": self.infos[agent]["action_mask"]}
            self._obs_cache[agent] = cached
        return cached

    # ------------------------------------------------------------------ the privileged state (training only)
    def state(self) -> np.ndarray:
        """PettingZoo's global state: every hand, the dead hand, the table and the chips, seats counted from
        seat 0 (float32, ``state_space``; docs/observation.md). For training only: no agent reads it."""
        return self.engine.encode_state(self.game, 0, self._state_static)

    def state_for(self, agent: str) -> np.ndarray:
        """:meth:`state` with seats counted from ``agent``'s seat (its hand is relative seat 0), as the vector
        env's ``states()`` counts them from the learner's."""
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return self.engine.encode_state(self.game, self._seat[agent], self._state_static)

    # ------------------------------------------------------------------ extras
    def record(self) -> dict[str, Any]:
        """The JSON-serialisable record of the session so far (docs/contract.md)."""
        return session_record(self.game, self.variant)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        viewer = self._seat.get(self.agent_selection, 0)
        if self.render_mode == "rgb_array":
            return table_picture(self.game, None if self.render_all_hands else viewer, reveal=self.render_all_hands)
        text = render_table(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
