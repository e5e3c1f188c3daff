"""``newmarket serve``: run the web app on this machine (127.0.0.1 by default).

``add_arguments(parser)`` and ``run(args) -> int`` are what the ``newmarket`` command calls;
``main(argv)`` runs it on its own. The web libraries are imported here at the top, so a missing
``web`` extra is reported by ``newmarket`` in one line before anything starts.
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import Sequence

import fastapi  # noqa: F401 - imported first so a missing extra is named before the parser runs
import uvicorn

from newmarket_env.agents import available_agents
from newmarket_env.util.cli_common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, command_parser, fail
from newmarket_env.web.guard import DEFAULT_ALLOWED_HOSTS, WILDCARD_ADDRESSES
from newmarket_env.web.seated import parse_seated

PROG = "newmarket serve"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give ``parser`` the description and options of ``newmarket serve``."""
    parser.description = (
        "Play, watch and replay sessions in a web browser. The page needs no internet; "
        "the server listens on this machine only unless --host says otherwise."
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}: this machine only; 0.0.0.0 "
        "opens the app to the network, with no login)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help=f"a name the browser may call this server by, besides {', '.join(DEFAULT_ALLOWED_HOSTS)} "
        "(and the --host address); repeat for more. Other names are refused, so a web page "
        "cannot reach the server through a name of its own that points here",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME=PATH_OR_MODULE:ATTR",
        help="seat your own agent: a saved .npz, an SB3 .zip or MODULE:ATTR, offered on the page as NAME "
        "in Play and Watch (the page never names files itself); repeat for more",
    )
    return parser


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The parser of ``newmarket serve``, on its own."""
    return command_parser(add_arguments, prog)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the web app on its own (as ``newmarket serve`` does); returns the exit code."""
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Check the address, then serve until Ctrl-C; returns the exit code."""
    if not 1 <= args.port <= 65535:
        return fail(args.prog, f"--port {args.port} is out of range; allowed: 1..65535", EXIT_BAD_INPUT)
    from newmarket_env.web.app import create_app  # optional: needs FastAPI (web extra)

    try:  # every --agent is read before the server starts: a wrong one is one line, and nothing listens
        seated = parse_seated(args.agent, taken=available_agents())
    except ValueError as err:
        return fail(args.prog, str(err), EXIT_BAD_INPUT)

    try:  # a taken port or an unknown address is said in one line before the server starts
        with socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((args.host, args.port))
    except OSError as err:
        return fail(args.prog, f"cannot listen on {args.host}:{args.port}: {err.strerror or err}", EXIT_FAILED)
    allowed = [*DEFAULT_ALLOWED_HOSTS, *([] if args.host in WILDCARD_ADDRESSES else [args.host]), *args.allow_host]
    shown = "127.0.0.1" if args.host in WILDCARD_ADDRESSES else args.host
    for name, spec in seated.items():
        print(f"{args.prog}: seated {name} = {spec}", flush=True)
    print(
        f"{args.prog}: open http://{shown}:{args.port}/ in a browser (Ctrl-C stops; the games live in "
        "this process: stopping the server loses them)",
        flush=True,
    )
    try:
        app = create_app(allowed_hosts=allowed, seated=seated)
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except OSError as err:  # e.g. the port is taken
        return fail(args.prog, f"cannot listen on {args.host}:{args.port}: {err.strerror or err}", EXIT_FAILED)
    return EXIT_OK
