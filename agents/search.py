"""``search``: Monte Carlo over the deals the agent cannot tell apart.

Idea: at each real choice it samples ``budget`` worlds consistent with what it
knows (own hand, played cards, known dead cards, every seat's card count, the
dead hand's size), rebuilds each as an engine game at the current decision
(:mod:`newmarket_env.engine.position`), tries every candidate action in every
world and plays the deal to its end with a baseline policy for all seats
(``rollout``, default ``control``). It takes the action with the best mean
chip result for itself; all candidates share the same worlds, so their
difference is measured with less noise. Stakes (chosen before the cards are
seen) and single-option decisions go to the baseline. When a decision has
more than ``max_candidates`` options (Newbury discards, ``any_opposite_colour``
leads, auction bids) the baseline's ranking keeps the most promising ones.
Deterministic for a given seed.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from newmarket_env.agents import knowledge as K
from newmarket_env.agents.base import Agent
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.policy import Policy
from newmarket_env.agents.sampling import VIEWER, position_of, sample_world
from newmarket_env.engine.choice import ENGINES, compiled_available
from newmarket_env.engine.game import Game
from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import ObservationView, decode, view_of_game

ROLLOUT_POLICIES: dict[str, type[Policy]] = {"lowest": LowestPolicy, "greedy": GreedyPolicy, "control": ControlPolicy}
#: Most worlds a decision may sample. Time and memory grow with the worlds (linearly); far beyond this bound a
#: single decision takes minutes or runs out of memory, which no option should do by a typo.
MAX_BUDGET = 10_000


def world_inputs(view: ObservationView, rules: Rules, position: Any) -> tuple[Any, int, int, int, list[int]]:
    """What a ``CompiledSearch`` needs to draw worlds consistent with ``view``: the position, the viewer's
    hand, the cards to deal out, the known part of the dead hand and the other seats' hand sizes."""
    known_dead = view.known_dead & ~rules.removed_mask
    return position, view.hand, K.unseen(view, rules), known_dead, list(view.card_counts[1:])


def compiled_means(
    worlds: Any, view: ObservationView, rules: Rules, position: Any, candidates: list[int], budget: int
) -> np.ndarray:
    """Each candidate's mean chip change over ``budget`` worlds, sampled and rolled out in C by ``worlds``
    (a ``CompiledSearch``: the draws of :func:`sample_world`, the rollouts of its policy)."""
    return worlds.evaluate(*world_inputs(view, rules, position), candidates, budget)


class SearchAgent(Agent):
    """Monte Carlo search over sampled worlds with baseline rollouts to the end of the deal."""

    name = "search"

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        budget: int = 64,
        rollout: str = "control",
        max_candidates: int = 5,
        engine: str = "auto",
    ) -> None:
        super().__init__(rules, seed)
        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r} is unknown; allowed: {', '.join(ENGINES)}")
        if engine == "compiled" and not compiled_available():
            raise ValueError("engine='compiled' but the compiled engine is not built; use engine='python' or 'auto'")
        # Worlds and rollouts in C (agents/_search.pyx CompiledSearch) when built: the same draws, the same means.
        self.compiled = engine != "python" and compiled_available()
        if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
            raise ValueError(f"budget={budget!r} must be an int from 1 to {MAX_BUDGET} (worlds sampled per decision)")
        if rollout not in ROLLOUT_POLICIES:
            raise ValueError(f"rollout={rollout!r} is unknown; allowed: {', '.join(ROLLOUT_POLICIES)}")
        if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or max_candidates < 2:
            raise ValueError(f"max_candidates={max_candidates!r} must be an int >= 2")
        self.budget, self.rollout_name, self.max_candidates = budget, rollout, max_candidates
        self.reset()

    def reset(self) -> None:
        """Restart the random streams: the same seed gives the same session."""
        self._explained: tuple[dict[str, np.ndarray], int] | None = None  # explain()'s observation and action
        self._random = random.Random(self.seed)
        self.guide = ControlPolicy(self.rules, random.Random(self.seed))
        self.rollout = ROLLOUT_POLICIES[self.rollout_name](self.rules, random.Random(self.seed))
        self._worlds = None
        if self.compiled:
            from newmarket_env.agents._search import CompiledSearch  # compiled: absent where it was not built

            self._worlds = CompiledSearch(self.rules, self.seed, self.rollout_name)

    def act(self, observation: dict[str, Any]) -> int:
        explained = self._explained
        self._explained = None
        if explained is not None and _same_observation(explained[0], observation):
            return explained[1]  # explain() searched this very decision: the action it found
        view = decode(observation)
        if not view.legal:
            raise ValueError("act() was given an observation whose action_mask has no legal action")
        if len(view.legal) == 1 or view.decision is Decision.STAKE:
            return int(self.guide.decide(view))
        return int(self.choose(view, self.candidates(view)))

    def explain(self, observation: dict[str, Any]) -> dict[str, Any]:
        """Search the decision as :meth:`act` would and say how each candidate did (docs/contract.md): its
        mean chips over the shared worlds. The search is not repeated: the next :meth:`act` on this
        observation takes the action found, so asking changes nothing the agent does."""
        view = decode(observation)
        if not view.legal:
            raise ValueError("explain() was given an observation whose action_mask has no legal action")
        if len(view.legal) == 1 or view.decision is Decision.STAKE:
            action = int(self.guide.decide(view))
            thoughts: dict[str, Any] = {
                "summary": "the only legal action"
                if len(view.legal) == 1
                else "stakes are placed before the cards are seen: the baseline (control) places them",
                "actions": [{"action": action}],
            }
        else:
            thoughts = self.weigh(view, self.candidates(view))
            action = int(thoughts["choice"])
        self._explained = (_copy_observation(observation), action)
        return thoughts

    def choose(self, view: ObservationView, candidates: list[int]) -> int:
        """The candidate of the best mean chip result over the shared worlds."""
        return candidates[int(np.argmax(self.evaluate(view, candidates)))]

    def weigh(self, view: ObservationView, candidates: list[int]) -> dict[str, Any]:
        """:meth:`choose` with its figures: each candidate's mean chips over the worlds, and the choice."""
        means = self.evaluate(view, candidates)
        best = int(np.argmax(means))
        return {
            "summary": f"mean chips to the end of the deal over {self.budget} sampled worlds, "
            f"{self.rollout_name} playing every seat of the rollouts",
            "choice": candidates[best],
            "actions": [
                {"action": c, "mean_chips": float(m), "worlds": self.budget}
                for c, m in sorted(zip(candidates, means, strict=True), key=lambda item: -item[1])
            ],
        }

    # ------------------------------------------------------------------ candidates
    def candidates(self, view: ObservationView) -> list[int]:
        """The actions worth searching, the baseline's favourite first."""
        if view.decision is Decision.BID:
            low = min(a for a in view.legal if a != A.PASS)
            return [A.PASS] + [a for a in (low, low + 1, low + 3) if a in view.legal]
        if view.decision is Decision.LEAD:
            ranked = self._ranked_leads(view)
        elif view.decision is Decision.DISCARD:
            ranked = sorted(view.legal, key=lambda c: -self.guide.discard_score(view, c))
        else:
            ranked = [self.guide.decide(view)] + [a for a in view.legal if a != self.guide.decide(view)]
        return ranked[: self.max_candidates]

    def _ranked_leads(self, view: ObservationView) -> list[int]:
        if len(view.legal) <= self.max_candidates:
            best = self.guide.lead(view)
            return [best] + [a for a in view.legal if a != best]
        boodles = K.boodle_mask(view)
        known = view.played | view.known_dead
        p_dead = K.hidden_dead_count(view, self.rules) / max(1, K.unseen(view, self.rules).bit_count())
        score = {c: self.guide.plan_value(view, view.hand, known, c, 1, boodles, p_dead) for c in view.legal}
        return sorted(view.legal, key=lambda c: (-score[c], c))

    # ------------------------------------------------------------------ rollouts
    def evaluate(self, view: ObservationView, candidates: list[int]) -> np.ndarray:
        """Mean chip change to the end of the deal for each candidate, over ``budget`` shared worlds."""
        position = position_of(view, self.rules)
        if self._worlds is not None:
            return compiled_means(self._worlds, view, self.rules, position, candidates, self.budget)
        totals = np.zeros(len(candidates))
        template = None
        for _ in range(self.budget):
            world = sample_world(view, self.rules, position, self._random, template)
            template = template or world
            for i, action in enumerate(candidates):
                totals[i] += self._play_out(world.copy(), action)
        return totals / self.budget

    def _play_out(self, game: Game, action: int) -> float:
        """Take ``action``, play every seat by the rollout policy to the end of the deal; own chip change."""
        start, deal = game.balances[VIEWER], game.deal_index
        game.apply(action)
        while not game.over and game.deal_index == deal:
            game.apply(self.rollout.decide(view_of_game(game, game.to_act)))
        return float(game.balances[VIEWER] - start)


def _copy_observation(observation: dict[str, Any]) -> dict[str, np.ndarray]:
    """A copy of the observation's arrays (an env may write the next observation into the same arrays)."""
    return {key: np.array(observation[key], copy=True) for key in ("observation", "action_mask")}


def _same_observation(kept: dict[str, np.ndarray], observation: dict[str, Any]) -> bool:
    return all(np.array_equal(kept[key], observation[key]) for key in kept)


__all__ = ["SearchAgent", "ROLLOUT_POLICIES", "MAX_BUDGET"]
