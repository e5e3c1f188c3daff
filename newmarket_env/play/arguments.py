"""The options of ``newmarket play``, ``replay`` and ``watch``, and what runs them.

Each command is a :class:`~newmarket_env.util.cli_common.Subcommand` (``PLAY``, ``REPLAY``, ``WATCH``):
``add_arguments(parser)`` gives a parser its description and options, ``run(args)`` runs it.
"""

from __future__ import annotations

import argparse
import os
import textwrap

from newmarket_env import available_agents
from newmarket_env.game.rules import PARAMETER_NAMES, VARIANTS, parse_settings
from newmarket_env.play.animation import write_gif
from newmarket_env.play.options import parse_agents
from newmarket_env.play.seat_check import check_seats
from newmarket_env.play.session import PlayOptions, play, prepare
from newmarket_env.play.watch import WatchOptions, WatchTable, watch
from newmarket_env.records import check_genuine, count_decisions, load_session, show_record
from newmarket_env.util.cli_common import Subcommand, fail

PLAY_EPILOG = """\
examples:
  newmarket play                                   a 4-player Newmarket session against 3 random agents
  newmarket play --variant michigan --players 5 --seed 7
  newmarket play --set num_deals=1 --set widow=dealer_buy --save game.json
  newmarket play --set boodles=AS,KS,QS,JS --agents random,random,random

at a decision, answer with the number of a choice or its words ("2", "4C", "lead 4C", "pass", "bid 3",
"take", "buy", "keep"; a refused answer says why);
"?" shows the table again, "q" stops the session (Ctrl-D and Ctrl-C stop it too).
after each deal its result is shown (every hand left, the boodles, the pot, the chips): Enter goes on.

rules parameters for --set (their meaning: docs/rules.md; use --players for the number of players):
  {params}
"""

REPLAY_EPILOG = """\
examples:
  newmarket play --save game.json && newmarket replay game.json
  newmarket replay game.json --all              print every deal at once
  newmarket replay results/T/records.jsonl.gz --game 3 --verify   check that its agents make its decisions
  newmarket replay game.json --gif game.gif     an animation of the session, every hand shown
  newmarket replay results/T/records.jsonl.gz --game 3   session 3 of a tournament run with --save-records
"""

WATCH_EPILOG = """\
examples:
  newmarket watch                                          4 random agents, every hand shown
  newmarket watch --agents greedy,control,random,search --delay 0.5
  newmarket watch --variant michigan --seat 2 --table      told from seat 2, the table before each decision
  newmarket watch --agents search,greedy,ppo-newmarket,control --thoughts   what each agent thought of its move
"""


def _add_table_options(parser: argparse.ArgumentParser) -> None:
    """``--variant`` and ``--players``, the same for ``play`` and ``watch``."""
    parser.add_argument(
        "--variant",
        default="newmarket",
        choices=list(VARIANTS),
        metavar="NAME",
        help=f"the rules preset: {', '.join(VARIANTS)} (default: newmarket)",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        metavar="N",
        help="number of players, 3-8 (newbury: 4); default: the variant's default, 4",
    )


def _known_agents() -> str:
    """The agent names for the help text; the help must show even if an agent module fails to import."""
    try:
        return ", ".join(available_agents())
    except Exception as err:  # any import error of an agent module
        return f"see newmarket_env.available_agents() (could not list them: {err})"


def _describe(parser: argparse.ArgumentParser, description: str, epilog: str) -> None:
    """Help texts laid out as written (their line breaks and examples kept)."""
    parser.description, parser.epilog = description, epilog
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    _describe(
        parser,
        "Play a session of a stops game in the terminal against agents.\nThe environment "
        "(newmarket_env.env) runs the rules, exactly as agents play them.",
        PLAY_EPILOG.format(
            params=textwrap.fill(
                ", ".join(p for p in PARAMETER_NAMES if p != "num_players"), width=100, subsequent_indent="  "
            )
        ),
    )
    _add_table_options(parser)
    parser.add_argument(
        "--seat", type=int, default=0, metavar="K", help="your seat, 0..N-1; seat 0 deals first (default: 0)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="seed of the shuffles and the agents; the same seed and answers give the same "
        "session (default: a fresh seed, printed at the start)",
    )
    parser.add_argument(
        "--agents",
        default="random",
        metavar="LIST",
        help="the other players: one agent for every other seat, or one per other seat in seat order, "
        "comma-separated; an agent is a name, a saved-agent .npz or stable-baselines3 .zip path, or "
        f"MODULE:ATTR (default: random; known: {_known_agents()})",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="settings",
        help="override a rules parameter of the preset, e.g. num_deals=1, widow=dealer_buy, "
        "boodles=AS,KS,QS,JS, ace_high=yes; repeat for several",
    )
    parser.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="write the session record (JSON) to FILE at the end, for 'newmarket replay FILE'",
    )


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    _describe(
        parser,
        "Show a saved session record (from 'newmarket play --save FILE' or\n"
        "newmarket_env.records.save_record) deal by deal: every hand as dealt, the dead hand,\n"
        "every event in words and the chips after each deal. Press Enter for the next deal.",
        REPLAY_EPILOG,
    )
    parser.add_argument(
        "file",
        metavar="FILE",
        help="the session record: a JSON file, gzipped or not, or a "
        "tournament's records.jsonl.gz (pick a session with --game)",
    )
    parser.add_argument(
        "--game", type=int, default=None, metavar="K", help="the K-th record of a file of several (counted from 1)"
    )
    parser.add_argument(
        "--gif",
        default=None,
        metavar="OUT",
        help="write an animation of the session (every hand shown; only deal K with --deal) "
        "to OUT instead of printing it",
    )
    parser.add_argument("--all", action="store_true", help="print every deal at once, without waiting for Enter")
    parser.add_argument("--deal", type=int, default=None, metavar="K", help="show only deal K (counted from 1)")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="also load each seat's agent again (a tournament's records say how) and check that it makes the "
        "record's decisions (every replay already checks that the record's results are what its cards and "
        "decisions give)",
    )


def add_watch_arguments(parser: argparse.ArgumentParser) -> None:
    _describe(
        parser,
        "Agents against agents: the session told in the terminal as it is played, every hand shown\n"
        "or from one seat's view.",
        WATCH_EPILOG,
    )
    _add_table_options(parser)
    parser.add_argument(
        "--agents",
        default="random",
        metavar="LIST",
        help="one agent for every seat, or one per seat in seat order, comma-separated; an agent is a "
        "name, a saved-agent .npz or stable-baselines3 .zip path, or MODULE:ATTR "
        f"(default: random; known: {_known_agents()})",
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="seed of the shuffles and the agents")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="settings",
        help="override a rules parameter of the preset (as for newmarket play); repeat for several",
    )
    parser.add_argument(
        "--seat",
        type=int,
        default=None,
        metavar="K",
        help="tell the session from seat K's view (its hand only); default: every hand shown",
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pause after each decision, to follow at reading speed (default: 0)",
    )
    parser.add_argument("--table", action="store_true", help="draw the table before every decision")
    parser.add_argument(
        "--thoughts",
        action="store_true",
        help="after each move, what the agent thought (its explain(): probabilities, searched candidates, "
        "the rule that chose); with --seat, that seat's agent only",
    )
    parser.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="write the session record (JSON) to FILE, with who sat where and what the agents thought",
    )


def _error(command: str, message: str) -> int:
    return fail(f"newmarket {command}", message)


def run_play(args: argparse.Namespace) -> int:
    """``newmarket play``: check every option first, then play."""
    try:
        options = PlayOptions(
            variant=args.variant,
            num_players=args.players,
            seat=args.seat,
            seed=args.seed,
            agents=parse_agents(args.agents),
            overrides=parse_settings(args.settings),
            save=args.save,
        )
        table = prepare(options)
    except ValueError as err:
        return _error("play", str(err))
    try:
        return play(table)
    except OSError as err:  # the record could not be written after all
        return _error("play", f"cannot save the record: {err}")


def run_replay(args: argparse.Namespace) -> int:
    """``newmarket replay``: load and check the record, then show it."""
    try:
        record, rules = load_session(args.file, args.game)
        deals = record["deals"]
        if args.deal is not None and not 1 <= args.deal <= len(deals):
            raise ValueError(f"--deal {args.deal}: the record has deals 1..{len(deals)}")
        check_genuine(record, args.file)  # a record whose results were edited is never shown as played
        if args.verify:
            _verify_seats(record, args.file)
    except RecursionError:  # json nests as deep as the file does: a record is a few levels deep
        return _error("replay", f"{args.file}: not a session record (nested too deeply)")
    except (ValueError, KeyError, TypeError) as err:
        return _error("replay", str(err) if isinstance(err, ValueError) else f"{args.file}: malformed record ({err!r})")
    if args.gif:
        return _write_gif(record, args)
    show_record(record, rules, step=not args.all, read=input, write=print, only=args.deal)
    return 0


def _verify_seats(record, path: str) -> None:
    """``--verify``: the record's agents, loaded again, make its decisions again; one line says what was checked."""
    checked = check_seats(record)
    if checked.difference:
        raise ValueError(f"{path}: the agents it names did not make its decisions: {checked.difference}")
    seats = ", ".join(map(str, checked.checked)) or "none"
    line = (
        f"verified: replaying the {count_decisions(record)} decisions of {path} gives back the same record; "
        f"the agents of seats {seats} made their {checked.decisions} decisions again"
    )
    if checked.unchecked:
        line += "; not checked: " + "; ".join(f"seat {seat} ({why})" for seat, why in checked.unchecked.items())
    print(line)


def _write_gif(record, args: argparse.Namespace) -> int:
    folder = os.path.dirname(os.path.abspath(args.gif))
    if not os.path.isdir(folder):
        return _error("replay", f"--gif {args.gif}: the folder {folder} does not exist")
    try:
        frames = write_gif(record, args.gif, only_deal=args.deal)
    except ModuleNotFoundError as err:
        return _error("replay", str(err))
    except OSError as err:
        return _error("replay", f"cannot write {args.gif}: {err.strerror or err}")
    print(f"wrote {args.gif}: {frames} frames")
    return 0


def run_watch(args: argparse.Namespace) -> int:
    """``newmarket watch``: check every option first, then play and tell the session."""
    try:
        options = WatchOptions(
            variant=args.variant,
            num_players=args.players,
            agents=parse_agents(args.agents),
            seed=args.seed,
            overrides=parse_settings(args.settings),
            seat=args.seat,
            delay=args.delay,
            table=args.table,
            save=args.save,
            thoughts=args.thoughts,
        )
        table = WatchTable(options)
    except ValueError as err:
        return _error("watch", str(err))
    try:
        return watch(table)
    except BrokenPipeError:  # the reader went away (newmarket watch | head): newmarket's main stops quietly
        raise
    except OSError as err:
        return _error("watch", f"cannot save the record: {err}")


PLAY = Subcommand(add_play_arguments, run_play)
REPLAY = Subcommand(add_replay_arguments, run_replay)
WATCH = Subcommand(add_watch_arguments, run_watch)
