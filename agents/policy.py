"""Rule-based policies: a decision per kind, read from an observation view; and the agent wrapper.

A :class:`Policy` answers every decision kind of the engine (stake, discard,
widow, buy, bid, lead) from an :class:`ObservationView`. It is cheap and plain
so a search agent can also use it to play out its sampled worlds.
:class:`PolicyAgent` turns one into an :class:`Agent` that decodes the env's
observation first.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from newmarket_env.agents.base import Agent
from newmarket_env.game import actions as A
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import ObservationView, decode


class Policy:
    """Base policy: dispatches on the decision kind; subclasses override the kinds they judge."""

    name = "policy"

    def __init__(self, rules: Rules, rng: random.Random | None = None) -> None:
        self.rules = rules
        # Python's generator (not numpy's): the compiled baselines run the same Mersenne Twister, so
        # both draw the same numbers and decide alike.
        self.rng = rng if rng is not None else random.Random(0)

    def decide(self, view: ObservationView) -> int:
        """The action for the decision the view shows (its ``legal`` list must be filled)."""
        if len(view.legal) == 1:
            return view.legal[0]
        if view.decision is None:
            raise ValueError("decide() needs a view of the viewer's own turn; this view asks no decision")
        handler: Callable[[ObservationView], int] = getattr(self, view.decision.value)
        return handler(view)

    def explain(self, view: ObservationView) -> dict[str, Any]:
        """The rule that decides the view's decision, in words, and its figure for each action it weighs
        (``why_<decision>``); the ``explain`` of docs/contract.md for the rule baselines."""
        if len(view.legal) == 1:
            return {"summary": "the only legal action", "actions": [{"action": view.legal[0]}]}
        if view.decision is None:
            raise ValueError("explain() needs a view of the viewer's own turn; this view asks no decision")
        summary, figures = getattr(self, f"why_{view.decision.value}")(view)
        if figures is None:
            return {"summary": summary}
        rows = sorted(figures.items(), key=lambda item: (-item[1], item[0]))
        return {"summary": summary, "actions": [{"action": a, "score": round(float(v), 4)} for a, v in rows]}

    # Why each kind of decision is taken: the rule in words, and a score per action when the rule weighs them.
    def why_stake(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "stakes spread evenly: the k-th chip of a deal on boodle k mod 4", None

    def why_discard(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "discards the first legal card", None

    def why_widow(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "always keeps its own hand", None

    def why_buy(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "always keeps its own hand", None

    def why_bid(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "always passes", None

    def why_lead(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "leads the first legal card: the lowest, clubs first", None

    # One method per Decision value; the base answers each in the simplest legal way.
    def stake(self, view: ObservationView) -> int:
        """Spread the chips: the k-th chip of a deal goes on boodle k mod 4."""
        placed = self.rules.boodle_stake - view.own_pending
        return A.stake_action(placed % 4)

    def discard(self, view: ObservationView) -> int:
        return view.legal[0]

    def widow(self, view: ObservationView) -> int:
        return A.KEEP

    def buy(self, view: ObservationView) -> int:
        return A.KEEP

    def bid(self, view: ObservationView) -> int:
        return A.PASS

    def lead(self, view: ObservationView) -> int:
        return view.legal[0]


class PolicyAgent(Agent):
    """An :class:`Agent` that decodes its observation and asks a :class:`Policy`."""

    def __init__(self, rules: Rules, seed: int | None = None, policy: type[Policy] = Policy) -> None:
        super().__init__(rules, seed)
        self.policy_class = policy
        self.name = policy.name
        self.reset()

    def reset(self) -> None:
        """Restart the random stream so a session replays the same way for the same seed."""
        self.policy = self.policy_class(self.rules, random.Random(self.seed))

    def act(self, observation: dict[str, Any]) -> int:
        view = decode(observation)
        if not view.legal:
            raise ValueError("act() was given an observation whose action_mask has no legal action")
        return int(self.policy.decide(view))

    def explain(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The rule that chooses here (docs/contract.md); asked of a fresh policy, so the agent's own random
        stream, and what it does next, stay as they were."""
        return explain_rule(self.policy_class, self.rules, self.seed, observation)


def explain_rule(policy: type[Policy], rules: Rules, seed: int | None, observation: dict[str, Any]) -> dict[str, Any]:
    """``policy``'s explanation of ``observation``'s decision, from a policy of its own stream."""
    view = decode(observation)
    if not view.legal:
        raise ValueError("explain() was given an observation whose action_mask has no legal action")
    return policy(rules, random.Random(seed)).explain(view)


__all__ = ["Policy", "PolicyAgent", "explain_rule"]
