"""``newmarket serve``: run the web app on this machine (127.0.0.1 by default).

``build_parser()`` and ``main(argv) -> int`` are what the ``newmarket`` command calls.
The web libraries are imported here at the top, so a missing ``web`` extra is
reported by ``newmarket`` in one line before anything starts.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Sequence

import fastapi  # noqa: F401 - imported first so a missing extra is named before the parser runs
import uvicorn

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="newmarket serve",
        description="Play, watch and replay sessions in a web browser. The page needs no internet; "
                    "the server listens on this machine only unless --host says otherwise.")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}: this machine only; 0.0.0.0 "
                             "opens the app to the network, with no login)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 1 <= args.port <= 65535:
        print(f"newmarket serve: error: --port {args.port} is out of range; allowed: 1..65535", file=sys.stderr)
        return 2
    from newmarket_env.web.app import create_app

    try:  # a taken port or an unknown address is said in one line before the server starts
        with socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((args.host, args.port))
    except OSError as err:
        print(f"newmarket serve: error: cannot listen on {args.host}:{args.port}: {err.strerror or err}",
              file=sys.stderr)
        return 1
    print(f"newmarket serve: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    except OSError as err:  # e.g. the port is taken
        print(f"newmarket serve: error: cannot listen on {args.host}:{args.port}: {err.strerror or err}",
              file=sys.stderr)
        return 1
    return 0
