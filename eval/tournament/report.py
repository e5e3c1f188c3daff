"""Writing a tournament to a folder: results.json, games.csv, leaderboard.md, the plots and, when kept,
records.jsonl.gz (every session's record, for ``newmarket replay FILE --game K`` and the web app's replay)."""

from __future__ import annotations

import csv
import json
import os
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


def write_results_json(result: TournamentResult, path: str, command: str | None = None) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(results_dict(result, command), fh, indent=1)


def write_games_csv(result: TournamentResult, path: str) -> None:
    """One row per seat of every session, with its seeds."""
    labels = result.plan.labels
    specs = [e.spec for e in result.entrants]
    header = [
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
    ]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for game in result.games:
            s = game.spec
            for seat, e in enumerate(s.seats):
                writer.writerow(
                    [
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
                )


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
    """Write every output file into ``folder`` (made if needed); returns their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = {
        name: os.path.join(folder, name)
        for name in ("results.json", "games.csv", "leaderboard.md", "chips_per_deal.png", "pairwise.png")
    }
    write_results_json(result, paths["results.json"], command)
    write_games_csv(result, paths["games.csv"])
    with open(paths["leaderboard.md"], "w", encoding="utf-8") as fh:
        fh.write(leaderboard_markdown(result, command))
    plan = result.plan
    about = (
        f"{plan.config.variant}, {plan.setup.players} players, {len(plan.specs)} sessions "
        f"({plan.config.blocks} deal blocks)"
    )
    plots.plot_chips_per_deal(result.standings, paths["chips_per_deal.png"], about=about)
    plots.plot_pairwise(result.standings, result.pairwise, paths["pairwise.png"], about=about)
    if result.plan.config.save_records:
        paths["records.jsonl.gz"] = os.path.join(folder, "records.jsonl.gz")
        write_records(result, paths["records.jsonl.gz"])
    return list(paths.values())
