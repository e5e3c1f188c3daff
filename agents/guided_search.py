"""``guided_search``: ``search`` whose rollouts are played by a trained network, optionally cut short by its value.

Same worlds and candidates as :class:`~newmarket_env.agents.search.SearchAgent` (sampled from
what the agent knows, the viewer at seat 0), but every seat of every rollout plays the network's
greedy action (``network``: a saved-agent ``.npz``, e.g. the ``final.npz`` of an expert-iteration
run) instead of ``control``. The rollouts of all ``budget`` worlds x candidates advance together:
at each step one numpy forward pass decides for every unfinished rollout.

``cutoff`` > 0 stops each rollout after that many decisions and adds what the value network
(``value``: a ``final_value.npz``, :mod:`newmarket_env.agents.value_net`) expects the viewer to win
from there to the end of the deal; ``cutoff`` = 0 plays every rollout to the end of the deal.
``prior="network"`` lets the network's logits rank the candidates (``"control"``: the baseline's
ranking, as ``search``). Deterministic for a given seed. Needs the compiled engine
(``FastGame.at_position`` builds the worlds).

>>> from newmarket_env import raw_env, load_agent
>>> e = raw_env(variant="newmarket", num_players=4)
>>> load_agent("guided_search", env=e)
Traceback (most recent call last):
ValueError: guided_search needs network=PATH (a saved-agent .npz, e.g. runs/<run>/final.npz)
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from newmarket_env import actions as A
from newmarket_env.agents.sampling import VIEWER, position_of, sample_cards
from newmarket_env.agents.saved import SavedAgent, load_saved_agent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.agents.value_net import ValueNet, load_value
from newmarket_env.engine.choice import compiled_available
from newmarket_env.engine.types import Decision
from newmarket_env.observation.encode import static_part
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.view import ObservationView
from newmarket_env.rules import Rules

PRIORS = ("control", "network")
_CONTROLLER: list[Any] = []


def _blas_controller() -> Any:
    """threadpoolctl's view of the loaded BLAS libraries, found once (finding them costs ~3 ms)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


class GuidedSearchAgent(SearchAgent):
    """Monte Carlo search over sampled worlds with network rollouts (and an optional value cut-off)."""

    name = "guided_search"

    def __init__(
        self,
        rules: Rules,
        seed: int | None,
        policy: SavedAgent,
        value: ValueNet | None = None,
        budget: int = 8,
        cutoff: int = 0,
        max_candidates: int = 5,
        prior: str = "control",
    ) -> None:
        if not compiled_available():
            raise ValueError(
                "guided_search needs the compiled engine, which is not built; reinstall with a C "
                "compiler present (pip install -e .)"
            )
        if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 0:
            raise ValueError(f"cutoff={cutoff!r} must be an int >= 0 (decisions before the value net; 0 = none)")
        if cutoff and value is None:
            raise ValueError("cutoff > 0 needs value=PATH (a value network .npz, e.g. runs/<run>/final_value.npz)")
        if prior not in PRIORS:
            raise ValueError(f"prior={prior!r} is unknown; allowed: {', '.join(PRIORS)}")
        self.policy, self.value, self.cutoff, self.prior = policy, value, cutoff, prior
        self.static = static_part(rules)
        super().__init__(
            rules, seed=seed, budget=budget, rollout="control", max_candidates=max_candidates, engine="python"
        )  # the parent's rollouts are not used: evaluate() is this class's

    def candidates(self, view: ObservationView) -> list[int]:
        """As ``search``; with ``prior="network"`` the legal actions of the highest logits (of the
        observation :meth:`act` was given, kept in ``self.observation``)."""
        if self.prior == "control" or view.decision is Decision.BID:
            return super().candidates(view)
        logits = self.policy.logits(self.observation)
        return sorted(view.legal, key=lambda a: (-float(logits[a]), a))[: self.max_candidates]

    def act(self, observation: dict[str, Any]) -> int:
        self.observation = np.asarray(observation["observation"], dtype=np.float32)
        # The forward passes are small (tens of rows): BLAS threads only wait on each other, and on a
        # loaded machine they made a decision 8 times slower (eval/bench/guided.py, 379 ms against 47 ms).
        with _blas_controller().limit(limits=1, user_api="blas"):
            return super().act(observation)

    def evaluate(self, view: ObservationView, candidates: list[int]) -> np.ndarray:
        """Mean chip change of each candidate over ``budget`` shared worlds, rollouts by the network."""
        from newmarket_env.engine._fast import FastGame  # built: __init__ checked

        position = position_of(view, self.rules)
        games: list[Any] = []
        seed = None
        for _ in range(self.budget):
            # the draws of search's sample_world: the cards of every world, one game seed (the first world's)
            hands, dead = sample_cards(view, self.rules, self._random)
            seed = self._random.randrange(2**31) if seed is None else seed
            # one game per candidate, built as search builds its worlds (a copy of one world per candidate would
            # do as well since FastGame.copy() keeps an at_position game's plain next deal, commit 5fe94be)
            games.extend(
                FastGame.at_position(position, hands, dead, seed=seed, plain_next_deal=True) for _ in candidates
            )
        start = np.array([g.balances[VIEWER] for g in games], dtype=np.float64)
        deal = games[0].deal_index
        for game, action in zip(games, candidates * self.budget, strict=True):
            game.apply(action)
        live = [i for i, g in enumerate(games) if not g.over and g.deal_index == deal]
        steps = 0
        while live and not (self.cutoff and steps >= self.cutoff):
            obs = np.zeros((len(live), FLAT_SIZE), dtype=np.float32)
            masks = np.zeros((len(live), A.NUM_ACTIONS), dtype=bool)
            for row, i in enumerate(live):
                games[i].encode_into(games[i].to_act, obs[row], self.static)
                masks[row, games[i].legal] = True
            for i, action in zip(live, self.policy.act_batch(obs, masks), strict=True):
                games[i].apply(int(action))
            live = [i for i in live if not games[i].over and games[i].deal_index == deal]
            steps += 1
        chips = np.array([g.balances[VIEWER] for g in games], dtype=np.float64) - start
        if live:  # cut off before the end of the deal: the value network's estimate of the rest
            obs = np.zeros((len(live), FLAT_SIZE), dtype=np.float32)
            for row, i in enumerate(live):
                games[i].encode_into(VIEWER, obs[row], self.static)
            assert self.value is not None  # __init__ refuses a cutoff without a value network
            chips[live] += self.value.chips(obs)
        return chips.reshape(self.budget, len(candidates)).mean(axis=0)


def guided_search(
    rules: Rules,
    seed: int | None = None,
    network: str | os.PathLike | None = None,
    value: str | os.PathLike | None = None,
    **options: Any,
) -> GuidedSearchAgent:
    """The registered factory: ``load_agent("guided_search", env=e, network=PATH[, value=PATH, cutoff=K])``."""
    if network is None:
        raise ValueError("guided_search needs network=PATH (a saved-agent .npz, e.g. runs/<run>/final.npz)")
    policy = load_saved_agent(network, rules, seed=seed)
    return GuidedSearchAgent(rules, seed, policy, load_value(value, rules) if value is not None else None, **options)


__all__ = ["GuidedSearchAgent", "guided_search", "PRIORS"]
