"""What a tournament plays: the config dataclass, its defaults and parsing of ``--set`` values.

The default size lives in named constants so it is easy to tune in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# --- defaults (tune here) ---------------------------------------------------------------------------
#: Deal blocks of a default run. Every block replays its seeded deals with every line-up in every
#: seating, so a run plays ``blocks * line-ups * seatings`` sessions; 20 blocks of the 5 baselines take
#: about 1.5 minutes on 2 cores (search at budget 8 is most of it).
DEFAULT_BLOCKS = 20
DEFAULT_VARIANT = "newmarket"
DEFAULT_PLAYERS = 4
DEFAULT_WORKERS = 2
#: Where sessions are played by default: "local" (see backends.BACKENDS).
DEFAULT_BACKEND = "local"
#: Bootstrap resamples for every interval (over deal blocks).
DEFAULT_RESAMPLES = 2000
#: Above this many line-ups per block (all combinations of agents into seats), a cyclic balanced design is used.
MAX_LINEUPS = 20
#: Upper bounds of the sizes a config may ask for: the schedule and the per-block figures are built
#: before the first session, so a size past these would fill memory instead of playing.
MAX_BLOCKS = 100_000
MAX_WORKERS = 1024
MAX_RESAMPLES = 1_000_000
MAX_MAX_LINEUPS = 10_000
#: Seconds an agent may think over one decision in ``newmarket tournament`` (``--decision-timeout``): far
#: above any shipped agent's (search at budget 8 takes milliseconds), short enough that a hung agent is
#: noticed. Past it the run stops in one line naming the agent and the decision, keeping the sessions played.
DEFAULT_DECISION_TIMEOUT_S: float = 60
MAX_DECISION_TIMEOUT_S = 86_400.0
#: Keyword options for slow agents in every run, unless the caller gives its own for that agent.
#: Keys are registered agent names; values are keyword arguments of load_agent(name, ...).
SLOW_AGENT_OPTIONS: dict[str, dict[str, Any]] = {"search": {"budget": 8}}
#: Agent names starting with this read hidden state; a default run leaves them out.
ORACLE_PREFIX = "oracle"
#: Agent used to fill seats when a default run has fewer agents than seats.
FILLER_AGENT = "random"


@dataclass
class TournamentConfig:
    """Everything that decides a tournament; two runs with equal configs give equal figures."""

    agents: tuple[str, ...] = ()
    """Registered agent names or paths of saved agents; repeats allowed (``("greedy", "random", "random", "random")``).
    Empty: every available agent that is not an oracle, padded with ``random`` up to the seat count."""
    variant: str = DEFAULT_VARIANT
    """Rules preset of docs/rules.md (``newmarket``, ``michigan``, ``newbury``, ``hoyle1885``, ``arnold2011``)."""
    players: int | None = DEFAULT_PLAYERS
    """Seats at the table; None takes the preset's default."""
    rules: Mapping[str, Any] = field(default_factory=dict)
    """Rules overrides by their docs/rules.md names, e.g. ``{"widow": "dealer_buy"}``."""
    blocks: int = DEFAULT_BLOCKS
    """Deal blocks: seeded sessions, each replayed with every line-up in every seating."""
    seed: int = 0
    """Master seed; every deal, lot and agent seed derives from it."""
    workers: int = 1
    """Worker processes; 1 plays in this process. Figures do not depend on it. Workers are spawned, so a
    script that asks for more than 1 must call run_tournament under ``if __name__ == "__main__":``."""
    permutations: bool = False
    """Seat every line-up in all orders (up to 4 seats) instead of its rotations only."""
    agent_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Keyword arguments for ``load_agent`` by agent name or path, e.g. ``{"search": {"budget": 50}}``."""
    resamples: int = DEFAULT_RESAMPLES
    """Bootstrap resamples for the intervals."""
    max_lineups: int = MAX_LINEUPS
    """More line-ups than this per block: play a balanced subset instead of all combinations."""
    backend: str = DEFAULT_BACKEND
    """Where sessions are played: ``"local"`` (this process, or ``workers`` processes) or ``"ray"`` (Ray tasks,
    one per deal block; needs the ``ray`` extra). Figures do not depend on it."""
    address: str | None = None
    """Ray only: None starts a private local Ray with ``workers`` CPUs (stopped afterwards); ``"auto"`` or
    ``"HOST:PORT"`` joins a running cluster (``ray start --head`` / ``ray start --address``)."""
    decision_timeout: float | None = None
    """Seconds an agent may think over one decision; past it the run stops (``TournamentStopped``, naming
    the agent and the decision, with the sessions played). A timeout plays the sessions in worker processes
    (one at least; only another process can stop an ``act`` that never returns), so a script must then call
    run_tournament under ``if __name__ == "__main__":``. None (the default here): no limit, and ``workers=1``
    plays in this process. ``newmarket tournament`` gives ``DEFAULT_DECISION_TIMEOUT_S``. Not applied with
    ``backend="ray"``."""
    save_records: bool = False
    """Also write every session's record (``records.jsonl.gz`` in the output folder), so any session of the
    leaderboard can be replayed (``newmarket replay FILE --game K``, or the web app's Replay)."""


def parse_set_value(text: str) -> Any:
    """Turn the text of ``--set key=value`` into an int, float, bool, tuple of texts or string.

    >>> parse_set_value("4"), parse_set_value("yes"), parse_set_value("AS,KS,QS,JS")
    (4, True, ('AS', 'KS', 'QS', 'JS'))
    >>> parse_set_value("1.5"), parse_set_value("2e-1"), parse_set_value("inf")
    (1.5, 0.2, 'inf')
    >>> parse_set_value("dealer_buy"), parse_set_value("()")
    ('dealer_buy', ())
    """
    value = text.strip()
    if value.lower() in ("true", "yes", "on"):
        return True
    if value.lower() in ("false", "no", "off"):
        return False
    try:
        return int(value)
    except ValueError:
        pass
    if any(ch.isdigit() for ch in value):  # "1.5", "2e-1"; not the words float() reads ("inf", "nan")
        try:
            return float(value)
        except ValueError:
            pass
    bare = value.strip("()[]")
    if bare != value or "," in value or " " in value:
        return tuple(part for part in bare.replace(",", " ").split() if part)
    return value


def parse_set_options(items: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """``["widow=dealer_buy", "widow_fee=2"]`` -> ``{"widow": "dealer_buy", "widow_fee": 2}``."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(
                f"--set {item!r} is not key=value, e.g. --set widow=dealer_buy or --set boodles=AS,KS,QS,JS"
            )
        out[key.strip()] = parse_set_value(value)
    return out


def parse_agent_options(items: list[str] | tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``["search:budget=50"]`` -> ``{"search": {"budget": 50}}`` (values parsed like ``--set``).

    >>> parse_agent_options(["my_agents:make:lowest=yes", "search:budget=50"])
    {'my_agents:make': {'lowest': True}, 'search': {'budget': 50}}
    """
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        head, eq, value = item.partition("=")
        agent, sep, key = head.rpartition(":")  # the last colon: an agent may be MODULE:ATTR or a C:\ path
        if not sep or not eq or not agent.strip() or not key.strip():
            raise ValueError(f"--agent-option {item!r} is not AGENT:KEY=VALUE, e.g. --agent-option search:budget=50")
        out.setdefault(agent.strip(), {})[key.strip()] = parse_set_value(value)
    return out
