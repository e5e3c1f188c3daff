"""Writing a tournament to a folder: results.json, games.csv, leaderboard.md, the plots and, when kept,
records.jsonl.gz (every session's record, for ``newmarket replay FILE --game K`` and the web app's replay).

Each file is written under a temporary name and renamed: a write that fails (a full disk) leaves the
files written before it whole and no half-written one. :class:`GamesLog` writes ``games.csv`` while the
sessions are played, one whole session at a time, so a run that stops keeps the sessions it played.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from newmarket_env.eval.tournament import plots
from newmarket_env.eval.tournament.accounting import PARTS
from newmarket_env.eval.tournament.api import TournamentResult, config_dict, meeting_counts
from newmarket_env.eval.tournament.leaderboard import (
    HEADERS,
    WON_DEFINITION,
    leaderboard_rows,
    not_entered_line,
    pairwise_matrix,
    small_run_note,
)
from newmarket_env.eval.tournament.play import GameResult
from newmarket_env.records import write_lines

RESULTS_FORMAT = "newmarket-tournament/1"
#: How every session's deals are rebuilt from its game seed, for whoever reproduces a run.
DEALS_FROM = "newmarket_env.eval.tournament.play.block_deals(rules, game_seed)"


def results_dict(result: TournamentResult, command: str | None = None) -> dict[str, Any]:
    """Everything needed to read and reproduce a run; only ``speed`` differs between equal runs."""
    plan = result.plan
    labels = plan.labels
    return {
        "format": RESULTS_FORMAT,
        "command": command,
        "config": config_dict(plan.config),
        "rules": plan.rules,
        "agents": [{"label": e.label, "spec": e.spec, "options": dict(e.options)} for e in result.entrants],
        "skipped_agents": plan.skipped,
        "schedule": {
            "blocks": plan.config.blocks,
            "lineups": [[labels[e] for e in t] for t in plan.lineups],
            "seatings_per_lineup": plan.seatings,
            "sessions": len(plan.specs),
            "meetings_per_pair": meeting_counts(plan),
            "deals_from": DEALS_FROM,
        },
        "standings": result.standings,
        "pairwise": result.pairwise,
        "games": [_game_dict(g, labels) for g in result.games],
        "speed": result.speed,
    }


def _game_dict(game, labels) -> dict[str, Any]:
    spec = game.spec
    return {
        "block": spec.block,
        "lineup": spec.lineup,
        "seating": spec.seating,
        "game_seed": spec.game_seed,
        "seats": [labels[e] for e in spec.seats],
        "agent_seeds": list(spec.agent_seeds),
        "deals": game.deals,
        "chips": game.chips,
        "outs": game.outs,
        "decisions": game.decisions,
    }


class WriteFailed(OSError):
    """A results file could not be written (a full disk); ``filename`` names it, ``strerror`` says why."""


def write_atomic(path: str, write: Callable[[str], None]) -> None:
    """``write(temporary)``, then rename the temporary file to ``path``; on failure no file is left behind,
    and an ``OSError`` is raised again as :class:`WriteFailed` naming ``path``.

    The temporary name keeps the extension (matplotlib reads the format from it)."""
    folder, name = os.path.split(path)
    stem, extension = os.path.splitext(name)
    temporary = os.path.join(folder, f".{stem}.partial{extension}")
    try:
        _naming(path, lambda: write(temporary))
        _naming(path, lambda: os.replace(temporary, path))
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _naming(path: str, write: Callable[[], None]) -> None:
    """``write()``; an ``OSError`` out of it raised again as :class:`WriteFailed` naming ``path``."""
    try:
        write()
    except WriteFailed:
        raise
    except OSError as err:
        raise WriteFailed(err.errno, err.strerror, path) from err


def write_results_json(result: TournamentResult, path: str, command: str | None = None) -> None:
    text = json.dumps(results_dict(result, command), indent=1)
    write_atomic(path, lambda temporary: _write_text(temporary, text))


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


#: The columns of games.csv: one row per seat of every session, with its seeds.
GAMES_HEADER = (
    "block",
    "lineup",
    "seating",
    "seat",
    "agent",
    "agent_spec",
    "game_seed",
    "agent_seed",
    "deals",
    "chips",
    "outs",
    *PARTS,
    "decisions",
)


def games_rows(game: GameResult, labels: list[str], specs: list[str]) -> Iterator[list[Any]]:
    """The rows of games.csv for one session (``labels`` and ``specs`` of the entrants, by index)."""
    s = game.spec
    for seat, e in enumerate(s.seats):
        yield [
            s.block,
            s.lineup,
            s.seating,
            seat,
            labels[e],
            specs[e],
            s.game_seed,
            s.agent_seeds[seat],
            game.deals,
            game.chips[seat],
            game.outs[seat],
            *(game.parts[seat][p] for p in PARTS),
            game.decisions[seat],
        ]


def csv_text(rows: Iterator[list[Any]] | list[list[Any]] | tuple[tuple[str, ...]]) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


def write_games_csv(result: TournamentResult, path: str) -> None:
    """One row per seat of every session, with its seeds, in schedule order."""
    labels, specs = result.plan.labels, [e.spec for e in result.entrants]
    text = csv_text((GAMES_HEADER,)) + "".join(csv_text(games_rows(game, labels, specs)) for game in result.games)
    write_atomic(path, lambda temporary: _write_text(temporary, text))


class GamesLog:
    """``games.csv`` written as the sessions finish (in the order they finish), one whole session at a time.

    A write that fails (a full disk) cuts the file back to the sessions written whole and raises
    :class:`WriteFailed` (naming the file); :attr:`sessions` counts the sessions in the file.
    """

    def __init__(self, path: str, labels: list[str], specs: list[str]) -> None:
        self.path, self.labels, self.specs = path, labels, specs
        self.sessions = 0
        self._file = open(path, "wb", buffering=0)  # noqa: SIM115 - closed by close(), written as sessions end
        self._size = 0
        self._write(csv_text((GAMES_HEADER,)).encode())

    def add(self, game: GameResult) -> None:
        """Append one finished session's rows."""
        self._write(csv_text(games_rows(game, self.labels, self.specs)).encode())
        self.sessions += 1

    def _write(self, data: bytes) -> None:
        try:
            view = memoryview(data)
            while view:  # a write may take part of the bytes when the disk fills: the next one then fails
                view = view[self._file.write(view) :]
        except OSError as err:
            self._file.truncate(self._size)  # whole sessions only; cutting a file needs no room
            raise WriteFailed(err.errno, err.strerror, self.path) from None
        self._size += len(data)

    def close(self) -> None:
        self._file.close()


def write_records(result: TournamentResult, path: str) -> None:
    """Every session's record as gzipped JSON lines, in games.csv order: ``{"title", "block", "lineup",
    "seating", "seats", "game_seed", "record"}`` (written atomically: :func:`newmarket_env.records.write_lines`)."""
    labels = result.plan.labels

    def entries():
        for number, game in enumerate(result.games, start=1):
            s = game.spec
            seats = [labels[e] for e in s.seats]
            title = f"session {number}: block {s.block}, line-up {s.lineup}, seating {s.seating} -- " + ", ".join(
                f"player_{k} {name}" for k, name in enumerate(seats)
            )
            yield {
                "title": title,
                "block": s.block,
                "lineup": s.lineup,
                "seating": s.seating,
                "seats": seats,
                "game_seed": s.game_seed,
                "record": game.record,
            }

    write_lines(entries(), path)


def leaderboard_markdown(result: TournamentResult, command: str | None = None) -> str:
    """The leaderboard, pairwise matrix and how to reproduce the run, as Markdown."""
    plan = result.plan
    cfg = plan.config
    lines = [f"# Tournament: {cfg.variant}, {plan.setup.players} players", ""]
    if command:
        lines += ["```bash", command, "```", ""]
    lines += [
        f"{cfg.blocks} deal blocks x {len(plan.lineups)} line-ups x {plan.seatings} seatings = "
        f"{len(plan.specs)} sessions of {plan.rules['num_deals']} deals; seed {cfg.seed}; "
        f"rules overrides: {dict(cfg.rules) or 'none'}.",
        "",
        "Chips per deal: mean over deal blocks, 95% percentile-bootstrap interval over blocks. "
        "Boodles, pot, cards (card payments), stakes (paid, negative) and other (widow, bids, "
        "leftover lots) are chips per deal by source; they add up to chips/deal. "
        "Rating: openskill Plackett-Luce, each session ranked by final chips. "
        f"{WON_DEFINITION[0].upper()}{WON_DEFINITION[1:]}.",
        "",
    ]
    note = small_run_note(cfg.blocks)
    if note:
        lines += [f"**Note:** {note}", ""]
    lines += _markdown_table(HEADERS, leaderboard_rows(result.standings, result.speed))
    lines += [
        f"\n{not_entered_line(name, why)[0].upper()}{not_entered_line(name, why)[1:]}"
        for name, why in plan.skipped.items()
    ]
    matrix = pairwise_matrix(result.standings, result.pairwise)
    lines += ["", "## Pairwise differences (row minus column, chips per deal; * = 95% paired interval excludes 0)", ""]
    lines += _markdown_table(("", *(row[0] for row in matrix)), [tuple(row) for row in matrix])
    return "\n".join(lines) + "\n"


def _markdown_table(headers, rows) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def write_outputs(result: TournamentResult, folder: str, command: str | None = None) -> list[str]:
    """Write every output file into ``folder`` (made if needed); returns their paths.

    Each file is written whole or not at all (:func:`write_atomic`), games.csv first: when a write fails
    (an ``OSError``, e.g. a full disk), the files before it are in ``folder``, whole.
    """
    os.makedirs(folder, exist_ok=True)
    names = ["results.json", "games.csv", "leaderboard.md", "chips_per_deal.png", "pairwise.png"]
    if result.plan.config.save_records:
        names.append("records.jsonl.gz")
    paths = {name: os.path.join(folder, name) for name in names}
    plan = result.plan
    about = (
        f"{plan.config.variant}, {plan.setup.players} players, {len(plan.specs)} sessions "
        f"({plan.config.blocks} deal blocks)"
    )
    leaderboard = leaderboard_markdown(result, command)
    writers: dict[str, Callable[[str], None]] = {
        "games.csv": lambda path: write_games_csv(result, path),
        "results.json": lambda path: write_results_json(result, path, command),
        "leaderboard.md": lambda path: write_atomic(path, lambda temporary: _write_text(temporary, leaderboard)),
        "chips_per_deal.png": lambda path: write_atomic(
            path, lambda temporary: plots.plot_chips_per_deal(result.standings, temporary, about=about)
        ),
        "pairwise.png": lambda path: write_atomic(
            path, lambda temporary: plots.plot_pairwise(result.standings, result.pairwise, temporary, about=about)
        ),
        "records.jsonl.gz": lambda path: _naming(path, lambda: write_records(result, path)),
    }
    for name in sorted(paths, key=lambda name: name != "games.csv"):  # the sessions first: they cost the most
        writers[name](paths[name])
    return list(paths.values())
