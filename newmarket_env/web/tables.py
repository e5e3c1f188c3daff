"""The games the web app holds: tables to play or watch, and records to replay.

Nothing here knows about HTTP: a bad request is a :class:`BadInput` (the app
turns it into a 4xx with its one-line message). The rules are the env's
(``newmarket_env.env`` on the reference engine, whose record grows in place,
as in the terminal game); agents come from ``load_agent``; what is shown is a
:func:`~newmarket_env.play.scene.scene`.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from newmarket_env.agents import available_agents, load_agent
from newmarket_env.engine.record import replay_steps
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.envs import env as make_env
from newmarket_env.play.replay import check_record, count_decisions
from newmarket_env.play.scene import deal_log, scene
from newmarket_env.play.words import Names
from newmarket_env.rules import PARAMETER_NAMES, Rules

MODES = ("play", "watch")
MAX_GAMES = 64  # tables and replays kept in memory; the oldest goes first
MAX_REPLAY_DECISIONS = 20_000  # a record of 160 deals at 8 players has about 900
MAX_KEPT_BYTES = 256 * 2**20  # the replays' frames kept in all; the oldest go first when more would be kept
MAX_SEED = 2**63 - 1
# Drawn seeds are this many bits: a player who sees their own hand cannot search them for the deal.
SEED_BITS = 63
RULES_KEYS = tuple(p for p in PARAMETER_NAMES if p != "num_players")  # ``players`` sets the number
_VIEW = re.compile(r"[0-9]{1,3}")


class BadInput(ValueError):
    """A request the app refuses; ``status`` is its HTTP status (400 bad value, 404 unknown id, 409 not now)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class TableGame:
    """A session at a table: in ``play`` a person holds ``seat`` and agents the others; in ``watch``, agents all."""

    def __init__(
        self,
        mode: str,
        variant: str = "newmarket",
        players: int | None = None,
        agents: Sequence[str] = ("random",),
        seat: int = 0,
        seed: int | None = None,
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        if mode not in MODES:
            raise BadInput(f"mode {mode!r} is unknown; allowed: {', '.join(MODES)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            raise BadInput(f"seed {seed!r} is out of range; allowed: 0..{MAX_SEED} (or none: a fresh one)")
        unknown = sorted(set(rules or {}) - set(RULES_KEYS))
        if unknown:  # the env takes other keywords too (render mode, observation): not the web's to set
            raise BadInput(f"unknown rules parameter {', '.join(map(repr, unknown))}; allowed: {', '.join(RULES_KEYS)}")
        try:
            self.env = make_env(variant=variant, num_players=players, engine="python", **dict(rules or {}))
        except (ValueError, TypeError) as err:
            raise BadInput(str(err)) from None
        n = self.env.unwrapped.rules.num_players
        self.mode, self.variant = mode, variant
        self.human = seat if mode == "play" else None
        if mode == "play" and not (isinstance(seat, int) and 0 <= seat < n):
            raise BadInput(f"seat {seat!r} is not a seat of this {n}-player table; allowed: 0..{n - 1}")
        self.seed = secrets.randbits(SEED_BITS) if seed is None else seed
        robot_seats = [s for s in range(n) if s != self.human]
        names = _agent_names(agents, len(robot_seats))
        try:  # an agent made for other rules (a trained one) says so: a choice of the form, not a bug
            self.agents = {
                s: load_agent(name, env=self.env, seed=self.seed + 1 + s)
                for s, name in zip(robot_seats, names, strict=True)
            }
        except (ValueError, TypeError) as err:
            raise BadInput(f"{str(err).splitlines()[0]}") from None
        self.labels = {s: f"player_{s} ({name})" for s, name in zip(robot_seats, names, strict=True)}
        for agent in self.agents.values():
            agent.reset()
        self.env.reset(seed=self.seed)
        self.lock = threading.Lock()
        if self.human is not None:
            self._agents_until_human()

    @property
    def game(self):
        return self.env.unwrapped.game

    def view(self, view: str | None = None) -> dict[str, Any]:
        """The table as the request may see it: a player sees only their seat; a watcher any seat or all."""
        n = self.game.n
        if self.human is not None:
            if view not in (None, "", str(self.human)):
                raise BadInput(f"view {view!r} is not allowed while you play: you see your own seat only", 403)
            viewer, reveal = self.human, False
        elif view in (None, "", "all"):
            viewer, reveal = None, True
        elif _VIEW.fullmatch(view) and int(view) < n:
            viewer, reveal = int(view), False
        else:
            raise BadInput(f"view {view!r} is unknown; allowed: all or a seat 0..{n - 1}")
        out = scene(self.game, viewer, reveal, self.labels)
        out.update(mode=self.mode, variant=self.variant, labels=self._all_labels())
        # The seed rebuilds every hand and the dead hand: a player gets it with the record, at the end.
        out["seed"] = self.seed if self.human is None or self.game.over else None
        return out

    def act(self, action: Any) -> None:
        """The person's decision; then the agents move until it is the person's turn again (or the end)."""
        game = self.game
        if self.human is None:
            raise BadInput("this table is watched, not played: nobody may act; use step", 409)
        if game.over:
            raise BadInput("the session is over; start a new game", 409)
        if game.to_act != self.human:  # cannot happen between requests, but a second tab could race
            raise BadInput(f"it is player_{game.to_act}'s turn, not yours", 409)
        if isinstance(action, bool) or not isinstance(action, int) or action not in game.legal:
            legal = ", ".join(str(a) for a in game.legal)
            raise BadInput(f"action {action!r} is not one of your choices now; allowed: {legal}")
        try:
            self.env.step(action)
        except IllegalActionError as err:  # the engine's own check, kept as the last word
            raise BadInput(str(err)) from None
        self._agents_until_human()

    def record(self) -> dict[str, Any]:
        """The session record (every hand as dealt): for a played table only once the session is over."""
        if self.human is not None and not self.game.over:
            raise BadInput("the record shows every hand: it is given once the session is over", 409)
        return self.env.unwrapped.record()

    def step(self) -> None:
        """One agent decision (watch mode)."""
        if self.human is not None:
            raise BadInput("this table is played by you: agents move by themselves after your decision", 409)
        if self.game.over:
            raise BadInput("the session is over; start a new game", 409)
        self._agent_move()

    def _agents_until_human(self) -> None:
        while not self.game.over and self.game.to_act != self.human:
            self._agent_move()

    def _agent_move(self) -> None:
        name = self.env.agent_selection
        seat = self.game.to_act
        self.env.step(int(self.agents[seat].act(self.env.observe(name))))

    def _all_labels(self) -> list[str]:
        return [self.labels.get(s, "you") for s in range(self.game.n)]


def _agent_names(agents: Sequence[str], seats: int) -> list[str]:
    agents = [str(a).strip() for a in agents]
    known = available_agents()
    for name in agents:
        if name not in known:  # registered names only: a web request must not name files to load
            raise BadInput(f"unknown agent {name!r}; allowed: {', '.join(known)}")
    if len(agents) == 1:
        return agents * seats
    if len(agents) != seats:
        raise BadInput(f"{len(agents)} agents given; give 1 (for every agent seat) or {seats} (one per agent seat)")
    return agents


class ReplayGame:
    """A saved record, as one scene before its first decision and one after each decision.

    Built in one pass over the record, in time and memory linear in its length: each
    frame is kept as its scene's JSON without the log, and the log of a frame is the
    finished deals' lines (kept once, shared by every frame) followed by the lines of
    the deal in progress (kept per frame: a deal is short).
    """

    mode = "replay"

    def __init__(self, record: Any, title: str = "the record") -> None:
        try:
            rules = check_record(record, title)
            decisions = count_decisions(record)
            if decisions > MAX_REPLAY_DECISIONS:
                raise BadInput(
                    f"{title} has {decisions} decisions; the web replay takes at most {MAX_REPLAY_DECISIONS} "
                    "(newmarket replay FILE shows any record)",
                    413,
                )
            self._build(record, rules)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
            if isinstance(err, BadInput):
                raise
            message = str(err) if isinstance(err, ValueError) else f"malformed record ({type(err).__name__}: {err})"
            raise BadInput(message if message.startswith(title) else f"{title}: {message}") from None
        self.variant, self.title, self.num_players = record["variant"], title, rules.num_players
        self.lock = threading.Lock()

    def _build(self, record: Any, rules: Rules) -> None:
        names = Names(rules.num_players)  # as scene(game, reveal=True) names the seats
        self.finished: list[str] = []  # the lines of every finished deal, in order
        self._frames: list[tuple[bytes, int, tuple[str, ...]]] = []
        done, before = 0, [rules.starting_chips] * rules.num_players
        for game in replay_steps(record):
            deals = game.deals
            while done < len(deals) and deals[done]["chips"]:
                self.finished.extend(deal_log(done, deals[done], rules, names, True, before))
                before, done = list(deals[done]["chips"]), done + 1
            current = tuple(deal_log(done, deals[done], rules, names, True, before)) if done < len(deals) else ()
            shown = json.dumps(scene(game, reveal=True, with_log=False), separators=(",", ":")).encode()
            self._frames.append((shown, len(self.finished), current))
        self.size = sum(len(shown) + sum(map(len, current)) for shown, _, current in self._frames)
        self.size += sum(map(len, self.finished))

    @property
    def frames(self) -> int:
        return len(self._frames)

    def frame(self, index: int) -> dict[str, Any]:
        last = len(self._frames) - 1
        if not 0 <= index <= last:
            raise BadInput(f"frame {index} is out of range; allowed: 0..{last}")
        shown, finished, current = self._frames[index]
        out = json.loads(shown)
        out.update(log=[*self.finished[:finished], *current])
        out.update(mode="replay", frame=index, frames=len(self._frames), variant=self.variant, title=self.title)
        return out


class GameStore:
    """Games by id, the newest :data:`MAX_GAMES` kept; an unknown or dropped id is a 404."""

    def __init__(self, limit: int = MAX_GAMES, kept_bytes: int = MAX_KEPT_BYTES) -> None:
        self.limit, self.kept_bytes = limit, kept_bytes
        self._games: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: Any) -> str:
        key = secrets.token_hex(8)
        with self._lock:
            self._games[key] = game
            while len(self._games) > self.limit or (len(self._games) > 1 and self.kept() > self.kept_bytes):
                self._games.popitem(last=False)
        return key

    def kept(self) -> int:
        """Bytes of replay frames held (tables are small: a game and its agents)."""
        return sum(getattr(game, "size", 0) for game in self._games.values())

    def get(self, key: str, kind: type) -> Any:
        with self._lock:
            game = self._games.get(key)
        if game is None or not isinstance(game, kind):
            what = "replay" if kind is ReplayGame else "game"
            raise BadInput(
                f"{what} id {key!r} is unknown or expired (the server keeps the newest {self.limit}, "
                "and a restart loses them all); start a new one",
                404,
            )
        return game
