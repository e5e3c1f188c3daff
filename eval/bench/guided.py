"""Think time of ``guided_search`` next to ``search``: the same sessions, one ``act`` of the measured seat timed.

``guided_player(budget, cutoff)`` has the shape of :func:`newmarket_env.eval.bench.search.search_player`
(sessions with the agent at seat 0 and ``control`` at the others; newmarket, michigan and newbury in
turn), so it can be a row of the suite. The network is a trained file when given, else a seeded
random one of the shipped agents' size (two hidden layers of 128): the think time depends on the
network's size and on how long its rollouts last, not on how well it plays.

``python -m newmarket_env.eval.bench.guided [--network PATH] [--variant V] [--agent NAME] [--decisions N]
[--rounds R] [--settings B:C,...]`` times ``search`` (budgets 8 and 64, its default), each ``--agent`` (a
registered agent, e.g. the shipped ``exit-newmarket-search``) and ``guided_search`` at each
budget:cutoff setting on the same decisions (the network's preset, else ``--variant``; 4 players) and
prints milliseconds per decision, the median of the rounds, and its ratio to ``search`` at its default
budget (the median of the per-round ratios: the figure that issue 12 bounds by 1).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from newmarket_env import raw_env
from newmarket_env.agents import available_agents, load_agent
from newmarket_env.agents.guided_search import GuidedSearchAgent, guided_search
from newmarket_env.agents.saved import SavedAgent, read_saved
from newmarket_env.agents.search import SearchAgent
from newmarket_env.agents.value_net import ValueNet
from newmarket_env.engine.choice import compiled_available
from newmarket_env.eval.bench.drivers import seat_zero_player
from newmarket_env.eval.bench.ours import PLAYERS
from newmarket_env.eval.bench.search import SEARCH_VARIANTS
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

HIDDEN = (128, 128)


def random_network(rules, seed: int = 0):
    """A saved-agent network of the shipped agents' size with seeded random weights (in memory)."""
    rng = np.random.default_rng(seed)
    sizes = [FLAT_SIZE, *HIDDEN, NUM_ACTIONS]
    layers = [
        (rng.normal(0, 1 / np.sqrt(a), size=(b, a)).astype(np.float32), np.zeros(b, np.float32))
        for a, b in itertools.pairwise(sizes)
    ]
    return SavedAgent(rules, seed, {"activation": "tanh"}, layers, name="random-network")


def random_value(seed: int = 1):
    """A value network of the same size with seeded random weights."""
    rng = np.random.default_rng(seed)
    sizes = [FLAT_SIZE, *HIDDEN, 1]
    layers = [
        (rng.normal(0, 1 / np.sqrt(a), size=(b, a)).astype(np.float32), np.zeros(b, np.float32))
        for a, b in itertools.pairwise(sizes)
    ]
    return ValueNet({"activation": "tanh", "reward_scale": 0.1}, layers)


def guided_agent(rules, seed: int, budget: int, cutoff: int, network: str | None = None):
    """``guided_search`` with the given network file, or the random network (and value net for a cut-off)."""
    if network is not None:
        value = network[: -len(".npz")] + "_value.npz" if cutoff and network.endswith("final.npz") else None
        return guided_search(rules, seed=seed, network=network, value=value, budget=budget, cutoff=cutoff)
    value = random_value() if cutoff else None
    return GuidedSearchAgent(rules, seed, random_network(rules), value, budget=budget, cutoff=cutoff)


def guided_player(budget: int, cutoff: int = 0):
    """Sessions of ``guided_search`` (random network) at seat 0 against three ``control`` seats."""
    if not compiled_available():
        return None, "skipped: the compiled engine is not built"
    play = seat_zero_player(
        lambda e, seed: guided_agent(e.unwrapped.rules, seed, budget, cutoff), SEARCH_VARIANTS, PLAYERS
    )
    return (
        play,
        f"guided_search budget {budget} cutoff {cutoff} (random 128x128 network) at seat 0, control at the others",
    )


def think_times(
    configurations: Mapping[str, Callable[..., Any]],
    decisions: int,
    seed: int = 0,
    rules_overrides: dict | None = None,
    variant: str = "newmarket",
    rounds: int = 1,
) -> dict[str, float]:
    """Milliseconds per decision of each agent maker ``(rules, seed) -> agent``, on the same ``decisions``
    decisions (``variant``, 4 players; the decisions of ``control`` seats playing the sessions): the median
    over ``rounds`` rounds (:func:`think_time_rounds`)."""
    per_round = think_time_rounds(configurations, decisions, seed, rules_overrides, variant, rounds)
    return {name: float(np.median(ms)) for name, ms in per_round.items()}


def think_time_rounds(
    configurations: Mapping[str, Callable[..., Any]],
    decisions: int,
    seed: int = 0,
    rules_overrides: dict | None = None,
    variant: str = "newmarket",
    rounds: int = 1,
) -> dict[str, list[float]]:
    """:func:`think_times` of each round: every round times every configuration in turn, so a loaded
    machine slows one round rather than one configuration, and ratios within a round stay steady."""
    aec = raw_env(variant=variant, num_players=PLAYERS, **dict(rules_overrides or {}))
    observations: list[dict[str, np.ndarray]] = []
    session = seed
    while len(observations) < decisions:
        aec.reset(seed=session)
        seats = [load_agent("control", env=aec, seed=session + s) for s in range(PLAYERS)]
        while not aec.game.over and len(observations) < decisions:
            seat = aec.game.to_act
            observation = aec.observe(f"player_{seat}")
            if observation["action_mask"].sum() > 1:
                observations.append({k: np.copy(v) for k, v in observation.items()})
            aec.step(seats[seat].act(observation))
        session += 1
    times: dict[str, list[float]] = {name: [] for name in configurations}
    for _ in range(rounds):
        for name, make in configurations.items():
            agent = make(aec.rules, seed)
            began = time.perf_counter()
            for observation in observations:
                agent.act(observation)
            times[name].append(1000 * (time.perf_counter() - began) / len(observations))
    return times


GUIDED_SETTINGS = ((8, 0), (4, 0), (4, 2), (2, 4), (2, 2), (1, 4))  # (budget, cutoff) timed by default


def _settings(text: str) -> list[tuple[int, int]]:
    """``"8:0,2:2"`` -> ``[(8, 0), (2, 2)]`` (budget:cutoff pairs)."""
    try:
        pairs = [tuple(int(x) for x in item.split(":")) for item in text.split(",")]
    except ValueError:
        pairs = []
    if not pairs or any(len(p) != 2 or p[0] < 1 or p[1] < 0 for p in pairs):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of BUDGET:CUTOFF pairs (budget >= 1, cutoff >= 0)")
    return [(p[0], p[1]) for p in pairs]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.eval.bench.guided",
        description="Think time per decision of search and guided_search on the same decisions.",
    )
    parser.add_argument("--network", help="a trained saved-agent .npz (default: a random 128x128 network)")
    parser.add_argument(
        "--variant", choices=SEARCH_VARIANTS, help="the decisions' preset (default: the network's, else newmarket)"
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        help="a registered agent to time too, e.g. exit-newmarket-search (with --variant michigan for "
        "exit-michigan-search); repeatable",
    )
    parser.add_argument("--decisions", type=int, default=100, help="decisions timed per agent (default 100)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds; the median is printed (default 1)")
    parser.add_argument(
        "--settings",
        type=_settings,
        help="guided_search BUDGET:CUTOFF pairs, comma-separated (default: "
        + ",".join(f"{b}:{c}" for b, c in GUIDED_SETTINGS)
        + "; none when --agent is given)",
    )
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error(f"--decisions {args.decisions} is not allowed; allowed: 1 or more")
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds} is not allowed; allowed: 1 or more")

    for name in args.agent:
        if name not in available_agents():
            parser.error(f"--agent {name!r} is unknown; allowed: {', '.join(available_agents())}")
    if args.settings is None:
        args.settings = [] if args.agent else list(GUIDED_SETTINGS)

    default_budget = inspect.signature(SearchAgent).parameters["budget"].default  # 64: the bar guided must meet
    overrides = {}
    variant = args.variant or "newmarket"
    if args.network:
        metadata = read_saved(args.network)[0]
        if args.variant and args.variant != metadata["variant"]:
            parser.error(f"--variant {args.variant} is not the network's ({metadata['variant']}); omit it")
        variant, overrides = metadata["variant"], {"num_deals": metadata["rules"]["num_deals"]}
    configurations: dict[str, Callable[..., Any]] = {
        f"search budget {b}": (lambda rules, seed, b=b: search_agent(rules, seed, b)) for b in (8, default_budget)
    }
    for name in args.agent:
        configurations[name] = lambda rules, seed, name=name: registered_agent(name, rules, seed)
    for budget, cutoff in args.settings:
        configurations[f"guided_search budget {budget} cutoff {cutoff}"] = lambda rules, seed, b=budget, c=cutoff: (
            guided_agent(rules, seed, b, c, args.network)
        )
    rounds = think_time_rounds(configurations, args.decisions, 0, overrides, variant, args.rounds)
    print(f"{variant}, {args.decisions} decisions, median of {args.rounds} round(s):")
    default = rounds[f"search budget {default_budget}"]
    for name, ms in rounds.items():
        ratio = np.median([a / b for a, b in zip(ms, default, strict=True)])  # paired by round
        print(f"{name}: {np.median(ms):.2f} ms per decision ({ratio:.2f} x search's default budget)")
    return 0


def registered_agent(name: str, rules, seed: int):
    """The agent registered as ``name`` for ``rules`` (what ``load_agent(name, env=...)`` builds)."""
    return load_agent(name, env=SimpleNamespace(rules=rules), seed=seed)


def search_agent(rules, seed: int, budget: int):
    """``search`` at ``budget`` (compiled when built), as the tournament makes it."""
    return SearchAgent(rules, seed=seed, budget=budget)


if __name__ == "__main__":
    raise SystemExit(main())
