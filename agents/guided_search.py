"""``guided_search``: ``search`` whose rollouts are played by a trained network, optionally cut short by its value.

Same worlds and candidates as :class:`~newmarket_env.agents.search.SearchAgent` (sampled from
what the agent knows, the viewer at seat 0), but every seat of every rollout plays the network's
greedy action (``network``: a saved-agent ``.npz``, e.g. the ``final.npz`` of an expert-iteration
run) instead of ``control``. The rollouts of all ``budget`` worlds x candidates advance together on
a compiled ``TableBatch`` (one table per world and candidate): at each step one numpy forward pass
decides for every unfinished rollout and one ``step`` call applies the actions.

``cutoff`` > 0 stops each rollout after that many decisions and adds what the value network
(``value``: a ``final_value.npz``, :mod:`newmarket_env.agents.value_net`) expects the viewer to win
from there to the end of the deal; ``cutoff`` = 0 plays every rollout to the end of the deal.
``prior="network"`` lets the network's logits rank the candidates (``"control"``: the baseline's
ranking, as ``search``). ``rollout="control"`` keeps ``search``'s own rollouts (compiled ``control``
at every seat) and uses the network only through the prior: the network proposes its
``max_candidates`` favourite actions and the search chooses among them, on fewer rollouts than
``search`` (which tries 5). Deterministic for a given seed. Needs the compiled engine.
``budget=2, cutoff=1`` thinks no longer than ``search`` at its default budget in newmarket,
michigan and newbury (docs/training/results.md, eval/bench/guided.py).

Two options spend control rollouts better than ``search`` does (``rollout="control"`` only):

- ``prior_weight`` adds ``prior_weight`` times the network's logit of each candidate to its mean
  chips: the network's opinion settles choices the rollouts cannot tell apart. (Adding the logit or
  the log-probability is the same choice: they differ by one constant for every candidate.)
- ``racing_worlds`` > 0 races the candidates: rounds of ``racing_worlds`` new shared worlds, after
  each a candidate is dropped once the leader's score beats it by more than ``racing_z`` standard
  errors of their paired per-world difference; the race ends with one candidate left or after
  ``budget`` worlds. Clear choices stop after a round or two, and the rollouts saved go to the
  close ones (successive elimination; ``budget`` is then the most worlds a candidate gets).

With both, the network's candidates and a race, it beats ``search`` at its default budget at no more
think time in newmarket, michigan and newbury: the shipped ``exit-<variant>-search`` agents
(:data:`SHIPPED_FILE` holds their options; docs/training/results.md, "Racing", their figures).

>>> from newmarket_env import raw_env, load_agent
>>> e = raw_env(variant="newmarket", num_players=4)
>>> load_agent("guided_search", env=e)
Traceback (most recent call last):
ValueError: guided_search needs network=PATH (a saved-agent .npz, e.g. runs/<run>/final.npz)
"""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.agents.reference import one_line, option_names
from newmarket_env.agents.sampling import VIEWER, position_of
from newmarket_env.agents.saved import TRAINED_DIR, SavedAgent, load_saved_agent
from newmarket_env.agents.search import SearchAgent, compiled_means, world_inputs
from newmarket_env.agents.value_net import ValueNet, load_value
from newmarket_env.engine.choice import compiled_available
from newmarket_env.engine.types import Decision
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import ObservationView

PRIORS = ("control", "network")
#: Who plays the rollouts: the network (on a TableBatch) or search's compiled ``control``.
ROLLOUTS = ("network", "control")
_CONTROLLER: list[Any] = []


def _blas_controller() -> Any:
    """threadpoolctl's view of the loaded BLAS libraries, found once (finding them costs ~3 ms)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController  # optional: needs threadpoolctl (train extra)

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _column_major(network: Any) -> Any:
    """A shallow copy of ``network`` (a saved agent or value net) whose weight matrices are column-major.

    The forward passes compute ``x @ weight.T``: with the weights column-major, ``weight.T`` is a row-major
    matrix and the product a plain BLAS call, about twice as fast on the rollouts' batches of tens of rows
    as on the row-major weights a file loads to (106 against 221 us for 12 rows of the pilot network's
    first layer). Same numbers, same outputs up to the last float32 bits of a sum.
    """
    fast = copy.copy(network)
    fast.layers = [(np.asfortranarray(weight), bias) for weight, bias in network.layers]
    return fast


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
        rollout: str = "network",
        prior_weight: float = 0.0,
        racing_worlds: int = 0,
        racing_z: float = 2.0,
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
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is unknown; allowed: {', '.join(ROLLOUTS)}")
        if cutoff and rollout == "control":
            raise ValueError("cutoff > 0 needs rollout='network' (control's rollouts always play to the deal's end)")
        weight_ok = isinstance(prior_weight, int | float) and not isinstance(prior_weight, bool)
        if not weight_ok or not (prior_weight >= 0 and math.isfinite(prior_weight)):
            raise ValueError(f"prior_weight={prior_weight!r} must be a finite number >= 0 (chips per unit of logit)")
        racing_ok = isinstance(racing_worlds, int) and not isinstance(racing_worlds, bool) and racing_worlds != 1
        if not racing_ok or racing_worlds < 0:
            raise ValueError(f"racing_worlds={racing_worlds!r} must be 0 (no race) or an int >= 2 (worlds per round)")
        if isinstance(racing_z, bool) or not isinstance(racing_z, int | float) or not racing_z > 0:
            raise ValueError(f"racing_z={racing_z!r} must be a number > 0 (standard errors to drop a candidate)")
        if (prior_weight or racing_worlds) and rollout != "control":
            raise ValueError("prior_weight and racing_worlds need rollout='control' (they weigh control's rollouts)")
        self.prior_weight, self.racing_worlds, self.racing_z = float(prior_weight), racing_worlds, float(racing_z)
        self._logits: np.ndarray | None = None  # the network's logits of the decision in hand, once computed,
        self._logits_of: np.ndarray | None = None  # and the observation they are for
        self.policy, self.cutoff, self.prior, self.rollouts = _column_major(policy), cutoff, prior, rollout
        self.value = _column_major(value) if value is not None else None
        self._batch: Any = None  # the TableBatch the rollouts run on (made at the first search)
        super().__init__(
            rules, seed=seed, budget=budget, rollout="control", max_candidates=max_candidates, engine="python"
        )  # the parent's rollouts are not used: evaluate() is this class's

    def reset(self) -> None:
        """Restart the random streams; the worlds are drawn by a compiled sampler seeded as ``search``'s."""
        super().reset()
        from newmarket_env.agents._search import CompiledSearch  # built: __init__ checked

        # its worlds for every search; its control rollouts too with rollout="control"
        self._sampler = CompiledSearch(self.rules, self.seed, "control")

    def candidates(self, view: ObservationView) -> list[int]:
        """As ``search``; with ``prior="network"`` the legal actions of the highest logits (of the
        observation :meth:`act` was given, kept in ``self.observation``)."""
        if self.prior == "control" or view.decision is Decision.BID:
            return super().candidates(view)
        logits = self._network_logits()
        return sorted(view.legal, key=lambda a: (-float(logits[a]), a))[: self.max_candidates]

    def _network_logits(self) -> np.ndarray:
        """The network's logits for the observation :meth:`act` was given (one forward pass per decision)."""
        if self._logits is None or self._logits_of is not self.observation:
            self._logits, self._logits_of = self.policy.logits(self.observation), self.observation
        return self._logits

    def act(self, observation: dict[str, Any]) -> int:
        return self._decide(super().act, observation)

    def explain(self, observation: dict[str, Any]) -> dict[str, Any]:
        """As ``search``'s (the next :meth:`act` on this observation takes the action found), with the
        network's bonus and the race's dropped candidates when the options use them."""
        return self._decide(super().explain, observation)

    def _decide(self, decide: Any, observation: dict[str, Any]) -> Any:
        self.observation = np.asarray(observation["observation"], dtype=np.float32)
        self._logits = None  # a new decision (the observation may be the same array, written anew)
        if self.rollouts == "control":  # one forward pass of one row: no BLAS threads to hold back
            return decide(observation)
        # The forward passes are small (tens of rows): BLAS threads only wait on each other, and on a
        # loaded machine they made a decision 8 times slower (eval/bench/guided.py, 379 ms against 47 ms).
        with _blas_controller().limit(limits=1, user_api="blas"):
            return decide(observation)

    def bonus(self, candidates: list[int]) -> np.ndarray:
        """Each candidate's bonus in chips: ``prior_weight`` times the network's logit (of the observation
        :meth:`act` was given, one forward pass a decision); zeros without a ``prior_weight``."""
        if not self.prior_weight:
            return np.zeros(len(candidates))
        return self.prior_weight * self._network_logits()[candidates].astype(np.float64)

    def choose(self, view: ObservationView, candidates: list[int]) -> int:
        """The candidate of the best score: mean chips plus ``prior_weight`` times the network's logit,
        over ``budget`` shared worlds, or over the worlds of a race (``racing_worlds``)."""
        if not (self.prior_weight or self.racing_worlds):
            return super().choose(view, candidates)
        bonus = self.bonus(candidates)
        if not self.racing_worlds:
            return candidates[int(np.argmax(self.evaluate(view, candidates) + bonus))]
        return candidates[self._race(view, candidates, bonus)]

    def _race(self, view: ObservationView, candidates: list[int], bonus: np.ndarray) -> int:
        """The index of the race's winner among ``candidates``: the race of :meth:`race_trace` run in C
        (``CompiledSearch.race``, the same draws and the same winner; a differential test holds them equal)."""
        return int(self._sampler.race(*self._race_inputs(view), candidates, bonus, *self._race_settings()))

    def race_trace(
        self, view: ObservationView, candidates: list[int], bonus: np.ndarray
    ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """The race (successive elimination on shared worlds), in Python: the readable reference of
        :meth:`_race` and the figures :meth:`weigh` shows. The winner's index, each candidate's mean chips over
        the worlds it was given, how many worlds each was given, and after how many worlds each left the race
        (0: it stayed to the end)."""
        inputs = self._race_inputs(view)
        budget, round_worlds, z = self._race_settings()
        chips = np.zeros((budget, len(candidates)))  # world w's chip change after candidate c
        given = np.zeros(len(candidates), dtype=np.int64)  # the worlds each candidate was played out on
        dropped = np.zeros(len(candidates), dtype=np.int64)
        alive = np.arange(len(candidates))  # the candidates still racing; every one has all the worlds so far
        worlds = 0
        while True:
            size = min(round_worlds, budget - worlds)
            chips[worlds : worlds + size, alive] = self._sampler.evaluate_worlds(
                *inputs, [candidates[i] for i in alive], size
            )
            worlds += size
            given[alive] = worlds
            seen = chips[:worlds, alive]
            scores = seen.mean(axis=0) + bonus[alive]
            lead = int(np.argmax(scores))
            if worlds >= budget:
                return int(alive[lead]), _means(chips, given), given, dropped
            # The lead over each rival and its standard error, from the per-world differences (shared worlds
            # make them far less noisy than the two means). A rival equal to the leader in every world so far
            # (spread 0: the same cards in effect) is dropped too: more worlds would not part them.
            spread = (seen[:, [lead]] - seen).std(axis=0, ddof=1) / np.sqrt(worlds)
            keep = (scores[lead] - scores <= z * spread) & (spread > 0)
            keep[lead] = True
            dropped[alive[~keep]] = worlds
            alive = alive[keep]
            if alive.size == 1:
                return int(alive[0]), _means(chips, given), given, dropped

    def weigh(self, view: ObservationView, candidates: list[int]) -> dict[str, Any]:
        """:meth:`choose` with its figures: each candidate's mean chips, the network's bonus, its score and,
        in a race, the worlds it was given (``dropped_after``: the worlds after which it left the race)."""
        if not (self.prior_weight or self.racing_worlds):
            thoughts = super().weigh(view, candidates)
            who = "the network" if self.rollouts == "network" else "control"
            cut = f", cut off after {self.cutoff} decisions by the value network" if self.cutoff else ""
            thoughts["summary"] = (
                f"mean chips to the end of the deal over {self.budget} sampled worlds, {who} playing the "
                f"rollouts{cut}; candidates from the {self.prior} prior"
            )
            return thoughts
        bonus = self.bonus(candidates)
        if self.racing_worlds:
            winner, means, given, dropped = self.race_trace(view, candidates, bonus)
            summary = (
                f"a race on shared worlds ({self.racing_worlds} a round, {self.budget} at most): a candidate "
                f"leaves once the leader is {self.racing_z:g} standard errors ahead; score = mean chips"
            )
        else:
            means = self.evaluate(view, candidates)
            winner, given = int(np.argmax(means + bonus)), np.full(len(candidates), self.budget)
            dropped = np.zeros(len(candidates), dtype=np.int64)
            summary = f"mean chips over {self.budget} sampled worlds"
        if self.prior_weight:
            summary += f" + {self.prior_weight:g} x the network's logit"
        rows = []
        for i, action in enumerate(candidates):
            row: dict[str, Any] = {"action": action, "mean_chips": float(means[i])}
            if self.prior_weight:
                row["bonus"] = float(bonus[i])
            row["score"] = float(means[i] + bonus[i])
            row["worlds"] = int(given[i])
            if dropped[i]:
                row["dropped_after"] = int(dropped[i])
            rows.append(row)
        rows.sort(key=lambda row: (row["action"] != candidates[winner], -row["worlds"], -row["score"]))
        return {"summary": summary, "choice": candidates[winner], "actions": rows}

    def _race_inputs(self, view: ObservationView) -> tuple[Any, int, int, int, list[int]]:
        return world_inputs(view, self.rules, position_of(view, self.rules))

    def _race_settings(self) -> tuple[int, int, float]:
        return self.budget, self.racing_worlds, self.racing_z

    def evaluate(self, view: ObservationView, candidates: list[int]) -> np.ndarray:
        """Mean chip change of each candidate over ``budget`` shared worlds, rollouts by the network.

        The worlds are sampled in C with the draws of search's ``sample_world`` (a ``CompiledSearch``
        seeded as the agent) and each is copied to one table of a compiled
        :class:`~newmarket_env.engine._batch.TableBatch` per candidate (world ``w``, candidate ``c`` at
        table ``w * len(candidates) + c``); the batch writes every table's observation and legal mask in
        place, so a rollout step is one forward pass for the unfinished tables and one ``step`` call.
        """
        position = position_of(view, self.rules)
        if self.rollouts == "control":  # search's evaluation, on the candidates the prior chose
            return compiled_means(self._sampler, view, self.rules, position, candidates, self.budget)
        width = len(candidates)
        tables = np.arange(self.budget * width)
        batch = self._batch_of(tables.size)
        # search's worlds with search's draws (agents/sampling.py sample_world), sampled in C
        batch.load_worlds(self._sampler, *world_inputs(view, self.rules, position), self.budget, width)
        deal, used = int(batch.deal_index[0]), tables.size
        batch.step(np.array(candidates * self.budget), tables=tables)
        # The viewer's chips since the candidate. Slices rather than index lists on these small arrays: a step
        # zeroes every table's reward, and a table that left the deal is never stepped again, so it stays out.
        chips = batch.rewards[:used, VIEWER].astype(np.float64)
        live = np.flatnonzero((batch.to_act[:used] >= 0) & (batch.deal_index[:used] == deal))
        steps = 0
        while live.size and not (self.cutoff and steps >= self.cutoff):
            batch.step(self._actions(batch.observations[live], batch.action_masks[live]), tables=live)
            chips += batch.rewards[:used, VIEWER]
            live = np.flatnonzero((batch.to_act[:used] >= 0) & (batch.deal_index[:used] == deal))
            steps += 1
        if live.size:  # cut off before the end of the deal: the value network's estimate of the rest
            assert self.value is not None  # __init__ refuses a cutoff without a value network
            chips[live] += self.value.chips(batch.observe(VIEWER, live))
        return chips.reshape(self.budget, width).sum(axis=0) / self.budget  # np.mean's sum and division

    def _actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The network's action for each row: ``act_batch``'s masked argmax without its checks and copies
        (the batch's masks always hold a legal action), which cost as much as the last two layers on these
        small batches; a sampling network goes through ``act_batch``."""
        if self.policy.sample:
            return self.policy.act_batch(observations, masks)
        logits = self.policy.logits(observations)
        logits[masks == 0] = -np.inf
        return logits.argmax(axis=1)

    def _batch_of(self, size: int) -> Any:
        """A batch of at least ``size`` tables whose every seat the caller plays, kept between decisions."""
        from newmarket_env.engine._batch import TableBatch  # the compiled engine: absent where it was not built

        if self._batch is None or self._batch.num_tables < size:
            self._batch = TableBatch(self.rules, size, seed=0)
            self._batch.auto_restart = False  # a rollout stops at its deal's end; no session follows
        return self._batch


def _means(chips: np.ndarray, given: np.ndarray) -> np.ndarray:
    """Each column's mean over its first ``given`` rows (the worlds that candidate was played out on)."""
    return np.array([chips[: max(1, n), c].mean() for c, n in enumerate(given)])


#: The shipped guided searches: name -> the shipped network (``agents/trained/``) and the options that were
#: measured against ``search`` (docs/training/results.md). Registered under each name by
#: :func:`newmarket_env.agents.shipped.register_shipped_guided`.
SHIPPED_FILE = TRAINED_DIR / "guided.json"


def shipped_guided(path: Path = SHIPPED_FILE) -> dict[str, dict[str, Any]]:
    """The entries of :data:`SHIPPED_FILE`: ``{name: {"network": FILE, "options": {...}}}``.

    A one-line ``ValueError`` naming the file when it is not such a table: not JSON, no ``agents``
    object, an entry without a ``network`` file name of ``agents/trained/`` or without an ``options`` object.
    """
    where = f"shipped guided searches {os.fspath(path)!r}"
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"{where} cannot be read as JSON ({one_line(err)})") from None
    agents = table.get("agents") if isinstance(table, dict) else None
    if not isinstance(agents, dict):
        raise ValueError(f"{where} must be a JSON object with an 'agents' object")
    for name, entry in agents.items():
        network = entry.get("network") if isinstance(entry, dict) else None
        if not (isinstance(network, str) and Path(network).name == network and network.endswith(".npz")):
            raise ValueError(f"{where}: entry {name!r} needs 'network', the name of an .npz file beside it")
        if not isinstance(entry.get("options"), dict):
            raise ValueError(f"{where}: entry {name!r} needs 'options', an object of guided_search options")
    return dict(agents)


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
    for key, path in (("network", network), ("value", value)):
        # The command line reads "a,b" as a list: the usual slip is several options in one --agent-option.
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ValueError(
                f"guided_search's {key}= must be one file path, got {path!r}; give each option its own "
                "--agent-option, e.g. --agent-option guided_search:network=PATH --agent-option guided_search:budget=128"
            )
    allowed = ["network", "value", *(option_names(GuidedSearchAgent, given=("rules", "seed", "policy", "value")) or [])]
    unknown = [key for key in options if key not in allowed]
    if unknown:
        raise ValueError(f"agent option {unknown[0]!r} is unknown for guided_search; allowed: {', '.join(allowed)}")
    policy = load_saved_agent(network, rules, seed=seed)
    return GuidedSearchAgent(rules, seed, policy, load_value(value, rules) if value is not None else None, **options)


__all__ = ["GuidedSearchAgent", "guided_search", "shipped_guided", "PRIORS", "ROLLOUTS"]
