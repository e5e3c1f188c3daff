"""The games the web app holds: tables to play or watch, and records to replay.

Nothing here knows about HTTP: a bad request is a :class:`BadInput` (the app
turns it into a 4xx with its one-line message). The rules are the env's
(``newmarket_env.env`` on the reference engine, whose record grows in place,
as in the terminal game); agents come from ``load_agent``; what is shown is a
:func:`~newmarket_env.describe.scene.scene`.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from newmarket_env.agents import available_agents, load_agent
from newmarket_env.describe.feed import RecordFeed
from newmarket_env.describe.scene import scene, session_log
from newmarket_env.describe.summary import deal_summary
from newmarket_env.describe.thoughts import decisions_so_far, explain_and_act, thought_entry
from newmarket_env.describe.words import Names, seat_labels
from newmarket_env.engine.record import replay_steps
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.envs import env as make_env
from newmarket_env.game.rules import PARAMETER_NAMES, Rules
from newmarket_env.records import PERSON, check_genuine, check_record, count_decisions
from newmarket_env.web.seated import spec_of

MODES = ("play", "watch")
MAX_GAMES = 64  # tables and replays kept in memory; the one used longest ago goes first
#: A game a person plays is never dropped for another while it was used in the last this many seconds (30
#: minutes: a long think, a coffee); when every game kept is such a one, a new game is refused (503).
IN_PLAY_KEEP_S = 30 * 60
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
        seated: Mapping[str, str] | None = None,
    ) -> None:
        form = (mode, variant, players, agents, seat, seed, rules)
        self.env, self.human, robot_seats, names = table_setup(*form, seated=seated)
        n = self.env.unwrapped.rules.num_players
        self.mode, self.variant = mode, variant
        self.seed = secrets.randbits(SEED_BITS) if seed is None else seed
        self.agents = {}
        for s, name in zip(robot_seats, names, strict=True):
            try:  # an agent made for other rules (a trained one) says so: a choice of the form, not a bug
                self.agents[s] = load_agent(spec_of(name, seated or {}), env=self.env, seed=self.seed + 1 + s)
            except (ValueError, TypeError) as err:
                raise BadInput(refusal_line(err, name)) from None
        #: who sits where: the agents' names, and PERSON at the person's seat (the record's ``agents``)
        self.agent_names = [PERSON if s == self.human else names[robot_seats.index(s)] for s in range(n)]
        self.labels = {s: label for s, label in seat_labels(self.agent_names).items() if s != self.human}
        self.thoughts: list[dict[str, Any]] = []  # what the agents said at their decisions (the record's)
        self.latest_thoughts: dict[str, Any] | None = None  # those of the last step (watch)
        self.moves: list[dict[str, Any]] = []  # the cards the last request saw played (public), in order
        self.waiting = False  # play: a deal just ended, and the agents wait for the person to go on
        self.ended_deal: int | None = None  # the deal (from 0) the last request ended, for its result
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
        out = scene(self.game, viewer, reveal, self.labels, you=self.human is not None)
        if self.waiting:  # the person reads the deal's result first: the next deal comes after
            assert self.ended_deal is not None  # set with waiting
            out["decision"] = None
            names = Names(self.game.n, viewer, self.labels)
            out["log"] = session_log(self.game.deals[: self.ended_deal + 1], self.rules, names, reveal)
        out.update(mode=self.mode, variant=self.variant, labels=self._all_labels())
        # The seed rebuilds every hand and the dead hand: a player gets it with the record, at the end.
        out["seed"] = self.seed if self.human is None or self.game.over else None
        out.update(waiting=self.waiting, summary=None, thoughts=None, moves=self.moves)
        if self.ended_deal is not None:
            out["summary"] = deal_summary(self.game.deals, self.ended_deal, self.rules)
        latest = self.latest_thoughts
        if self.human is None and latest is not None and viewer in (None, latest["seat"]):
            out["thoughts"] = latest  # watching: what the agent thought of the move just made
        return out

    @property
    def rules(self):
        return self.env.unwrapped.rules

    def act(self, action: Any) -> None:
        """The person's decision; then the agents move until it is the person's turn again (or the end)."""
        game = self.game
        if self.human is None:
            raise BadInput("this table is watched, not played: nobody may act; use step", 409)
        if game.over:
            raise BadInput("the session is over; start a new game", 409)
        if self.waiting:
            raise BadInput("the deal is over: go on to the next deal first (POST .../next)", 409)
        if game.to_act != self.human:  # cannot happen between requests, but a second tab could race
            raise BadInput(f"it is player_{game.to_act}'s turn, not yours", 409)
        if isinstance(action, bool) or not isinstance(action, int) or action not in game.legal:
            legal = ", ".join(str(a) for a in game.legal)
            raise BadInput(f"action {action!r} is not one of your choices now; allowed: {legal}")
        self.ended_deal = None
        finished, mark = _finished_deals(game), self._events_so_far()
        try:
            self.env.step(action)
        except IllegalActionError as err:  # the engine's own check, kept as the last word
            raise BadInput(str(err)) from None
        if not self._deal_ended(finished):
            self._agents_until_human()
        self.moves = self._moves_since(mark)

    def next_deal(self) -> None:
        """Play: the person has read the deal's result; the agents go on to the person's next decision."""
        if self.human is None:
            raise BadInput("this table is watched, not played: step through it instead", 409)
        if not self.waiting:
            raise BadInput("no deal is waiting to be closed: it is time to decide", 409)
        self.waiting, self.ended_deal = False, None
        mark = self._events_so_far()
        self._agents_until_human()
        self.moves = self._moves_since(mark)

    def record(self) -> dict[str, Any]:
        """The session record (every hand as dealt): for a played table only once the session is over."""
        if self.human is not None and not self.game.over:
            raise BadInput("the record shows every hand: it is given once the session is over", 409)
        return {**self.env.unwrapped.record(), "agents": self.agent_names, "thoughts": self.thoughts}

    def step(self) -> None:
        """One agent decision (watch mode)."""
        if self.human is not None:
            raise BadInput("this table is played by you: agents move by themselves after your decision", 409)
        if self.game.over:
            raise BadInput("the session is over; start a new game", 409)
        self.ended_deal, self.latest_thoughts = None, None
        finished, decisions_before = _finished_deals(self.game), decisions_so_far(self.game.deals)
        mark = self._events_so_far()
        self._agent_move()
        self.moves = self._moves_since(mark)
        if _finished_deals(self.game) > finished:
            self.ended_deal = finished
        if self.thoughts and self.thoughts[-1]["decision"] >= decisions_before:
            self.latest_thoughts = self.thoughts[-1]

    def _events_so_far(self) -> int:
        return sum(len(deal["events"]) for deal in self.game.deals)

    def _moves_since(self, mark: int) -> list[dict[str, Any]]:
        """The cards played (and boodles taken) since ``mark`` events: public, so any view may show them."""
        flat = [(d, e) for d, deal in enumerate(self.game.deals) for e in deal["events"]]
        return _moves(flat[mark:])

    def _agents_until_human(self) -> None:
        """Agents move until the person's turn, the end, or the end of a deal (the person reads its result)."""
        while not self.game.over and self.game.to_act != self.human:
            finished = _finished_deals(self.game)
            self._agent_move()
            if self._deal_ended(finished):
                return

    def _deal_ended(self, finished: int) -> bool:
        """After a move: whether it ended a deal (then its result is shown, and play waits unless it was the last)."""
        if _finished_deals(self.game) == finished:
            return False
        self.ended_deal = finished
        self.waiting = not self.game.over
        return True

    def _agent_move(self) -> None:
        """One agent decision, what the agent thought of it kept (its ``explain``, when it has one)."""
        game, seat = self.game, self.game.to_act
        kind, decision = game.decision, decisions_so_far(game.deals)
        action, thoughts = explain_and_act(self.agents[seat], self.env.observe(self.env.agent_selection))
        self.env.step(action)
        if thoughts is not None:
            agent = self.agent_names[seat]
            self.thoughts.append(thought_entry(decision, seat, agent, action, thoughts, kind, self.rules))

    def _all_labels(self) -> list[str]:
        return [self.labels.get(s, "you") for s in range(self.game.n)]


def table_setup(
    mode: str,
    variant: str,
    players: int | None,
    agents: Sequence[str],
    seat: int,
    seed: int | None,
    rules: Mapping[str, Any] | None,
    seated: Mapping[str, str] | None = None,
):
    """A new table's form checked: its env, the person's seat (``None`` watching), the agents' seats and names.

    A :class:`BadInput` names the first problem; the agents are not loaded yet (see :func:`refusals`).
    """
    if mode not in MODES:
        raise BadInput(f"mode {mode!r} is unknown; allowed: {', '.join(MODES)}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
        raise BadInput(f"seed {seed!r} is out of range; allowed: 0..{MAX_SEED} (or none: a fresh one)")
    unknown = sorted(set(rules or {}) - set(RULES_KEYS))
    if unknown:  # the env takes other keywords too (render mode, observation): not the web's to set
        raise BadInput(f"unknown rules parameter {', '.join(map(repr, unknown))}; allowed: {', '.join(RULES_KEYS)}")
    try:
        table = make_env(variant=variant, num_players=players, engine="python", **dict(rules or {}))
    except (ValueError, TypeError) as err:
        raise BadInput(str(err)) from None
    n = table.unwrapped.rules.num_players
    human = seat if mode == "play" else None
    if mode == "play" and not (isinstance(seat, int) and 0 <= seat < n):
        raise BadInput(f"seat {seat!r} is not a seat of this {n}-player table; allowed: 0..{n - 1}")
    robot_seats = [s for s in range(n) if s != human]
    return table, human, robot_seats, _agent_names(agents, len(robot_seats), seated or {})


def refusals(form: Mapping[str, Any], seated: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What dealing ``form`` (a new table's fields) would meet, before the deal: ``problem``, the one-line
    :class:`BadInput` of the form (else ``None``), and ``refused``, each agent that would refuse the table
    (a trained network made for other rules) with its one-line reason."""
    try:
        table, _, _, names = table_setup(
            form["mode"],
            form["variant"],
            form["players"],
            form["agents"],
            form["seat"],
            form["seed"],
            form["rules"],
            seated=seated,
        )
    except BadInput as err:
        return {"problem": str(err), "refused": []}
    refused = []
    for name in dict.fromkeys(names):  # each agent once, in the form's order
        try:
            load_agent(spec_of(name, seated or {}), env=table, seed=0)
        except (ValueError, TypeError) as err:
            refused.append({"agent": name, "reason": refusal_line(err, name)})
    return {"problem": None, "refused": refused}


#: A quoted path in a loader's message: 'C:\\...', '/...' or '~...'.
_QUOTED_PATH = re.compile(r"""'(?:/|~|[A-Za-z]:\\)[^']*'""")


def refusal_line(err: BaseException, name: str) -> str:
    """The first line of an agent's refusal as the page shows it: the agent's file named by the agent's
    name, since where the server keeps its files is none of a visitor's business.

    >>> refusal_line(ValueError("saved agent '/srv/a/exit.npz' was trained for 'newmarket'\\nmore"), "exit-x")
    "saved agent 'exit-x' was trained for 'newmarket'"
    """
    first = str(err).splitlines()[0] if str(err) else type(err).__name__
    return _QUOTED_PATH.sub(repr(name), first)


def _finished_deals(game) -> int:
    return sum(1 for deal in game.deals if deal["chips"])


def _agent_names(agents: Sequence[str], seats: int, seated: Mapping[str, str]) -> list[str]:
    agents = [str(a).strip() for a in agents]
    known = [*available_agents(), *seated]
    for name in agents:
        if name not in known:  # registered or seated names only: a web request must not name files to load
            raise BadInput(f"unknown agent {name!r}; allowed: {', '.join(known)}")
    if len(agents) == 1:
        return agents * seats
    if len(agents) != seats:
        raise BadInput(f"{len(agents)} agents given; give 1 (for every agent seat) or {seats} (one per agent seat)")
    return agents


class ReplayGame:
    """A saved record, as one scene before its first decision and one after each decision.

    Built in one pass over the record, in time and memory linear in its length: each frame is kept as its
    scene's JSON without the log, and the log of a frame is a prefix of the record's lines in words, which
    are kept once (the log only grows as the record goes on). A frame after a decision also holds what that
    step did (``moves``: the cards played and the boodles taken, in order, so the page can show forced
    follows one card at a time), the ``summary`` of a deal it ended, and the ``thoughts`` of the agent that
    decided, when the record kept them.
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
            check_genuine(record, title)  # an edited record is refused, never shown with recomputed chips
            self._build(record, rules)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
            if isinstance(err, BadInput):
                raise
            message = str(err) if isinstance(err, ValueError) else f"malformed record ({type(err).__name__}: {err})"
            raise BadInput(message if message.startswith(title) else f"{title}: {message}") from None
        self.variant, self.title, self.num_players = record["variant"], title, rules.num_players
        self.lock = threading.Lock()

    def _build(self, record: Any, rules: Rules) -> None:
        labels = seat_labels(record.get("agents"))
        names = Names(rules.num_players, None, labels)  # as scene(game, reveal=True, labels=labels) names them
        flat = [(d, e) for d, deal in enumerate(record["deals"]) for e in deal["events"]]
        said = {entry["decision"]: entry for entry in record.get("thoughts") or []}
        self.lines: list[str] = []  # the record in words; frame k's log is its first lines
        self._frames: list[tuple[bytes, int]] = []  # each frame's scene as JSON, and its log's length
        feed: RecordFeed | None = None
        seen = finished = events_of_finished = 0  # events so far; finished deals and their events
        for step, game in enumerate(replay_steps(record)):
            feed = feed or RecordFeed(game.deals, rules, names, reveal=True)
            feed.deals = game.deals  # the same deals, grown by this step
            self.lines.extend(feed.new_lines())
            frame = scene(game, reveal=True, labels=labels, with_log=False)
            # Counted from the last finished deal on, so a step costs the length of its own deals only.
            now = events_of_finished + sum(len(deal["events"]) for deal in game.deals[finished:])
            frame["moves"] = _moves(flat[seen:now])
            ended = _finished_deals(game)
            frame["summary"] = deal_summary(record["deals"], finished, rules) if ended > finished else None
            frame["thoughts"] = said.get(step - 1)
            events_of_finished += sum(len(deal["events"]) for deal in game.deals[finished:ended])
            seen, finished = now, ended
            self._frames.append((json.dumps(frame, separators=(",", ":")).encode(), len(self.lines)))
        self.size = sum(len(shown) for shown, _ in self._frames) + sum(map(len, self.lines))

    @property
    def frames(self) -> int:
        return len(self._frames)

    def frame(self, index: int) -> dict[str, Any]:
        last = len(self._frames) - 1
        if not 0 <= index <= last:
            raise BadInput(f"frame {index} is out of range; allowed: 0..{last}")
        shown, lines = self._frames[index]
        out = json.loads(shown)
        out.update(log=self.lines[:lines])
        out.update(mode="replay", frame=index, frames=len(self._frames), variant=self.variant, title=self.title)
        return out


def _moves(events: Sequence[tuple[int, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The cards played and boodles taken by one step, in order, in the deal the step began in."""
    if not events:
        return []
    first = events[0][0]
    moves = []
    for deal, event in events:
        if deal == first and event["type"] == "play":
            moves.append({"type": "play", "seat": event["seat"], "card": event["card"]})
        elif deal == first and event["type"] == "boodle":
            moves.append(
                {"type": "boodle", "seat": event["seat"], "boodle": event["boodle"], "amount": event["amount"]}
            )
    return moves


class GameStore:
    """Games by id, at most :data:`MAX_GAMES`, the one used longest ago dropped first; an unknown or dropped
    id is a 404.

    A game a person plays (``play`` mode, not over) that was used in the last :data:`IN_PLAY_KEEP_S` is never
    dropped: when only such games are kept, a new game is refused with a 503. Replays' frames count against
    ``kept_bytes`` too (tables are small).
    """

    def __init__(
        self,
        limit: int = MAX_GAMES,
        kept_bytes: int = MAX_KEPT_BYTES,
        keep_in_play_s: float = IN_PLAY_KEEP_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit, self.kept_bytes, self.keep_in_play_s, self.clock = limit, kept_bytes, keep_in_play_s, clock
        self._games: OrderedDict[str, Any] = OrderedDict()  # the one used longest ago first
        self._used: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, game: Any) -> str:
        """Keep ``game``; the id it is known by. A ``BadInput`` 503 when the store is full of games in play."""
        key = secrets.token_hex(8)
        with self._lock:
            self._games[key], self._used[key] = game, self.clock()
            while len(self._games) > self.limit or (len(self._games) > 1 and self.kept() > self.kept_bytes):
                gone = self._droppable(but=key)
                if gone is None:
                    if len(self._games) <= self.limit:  # only bytes over: a single replay may be larger
                        break
                    del self._games[key], self._used[key]
                    raise BadInput(
                        f"the server is full: it keeps {self.limit} games and each is being played (used in the "
                        f"last {self.keep_in_play_s / 60:g} minutes); try again in a few minutes",
                        503,
                    )
                del self._games[gone], self._used[gone]
        return key

    def _droppable(self, but: str) -> str | None:
        """The game used longest ago that may be dropped (not ``but``, not a game in play used lately)."""
        now = self.clock()
        for key, game in self._games.items():
            if key != but and not (_in_play(game) and now - self._used[key] < self.keep_in_play_s):
                return key
        return None

    def kept(self) -> int:
        """Bytes of replay frames held (tables are small: a game and its agents)."""
        return sum(getattr(game, "size", 0) for game in self._games.values())

    def get(self, key: str, kind: type) -> Any:
        """The game of id ``key``, now its most recently used; a ``BadInput`` 404 when unknown or dropped."""
        with self._lock:
            game = self._games.get(key)
            if game is not None and isinstance(game, kind):
                self._games.move_to_end(key)
                self._used[key] = self.clock()
        if game is None or not isinstance(game, kind):
            what = "replay" if kind is ReplayGame else "game"
            raise BadInput(
                f"{what} id {key!r} is unknown or expired (the server keeps the {self.limit} used last, "
                "and a restart loses them all); start a new one",
                404,
            )
        return game


def _in_play(game: Any) -> bool:
    """Whether a person is playing ``game`` (a table in play mode whose session is not over)."""
    return isinstance(game, TableGame) and game.human is not None and not game.game.over
