"""``newmarket serve``: run the web app on this machine (127.0.0.1 by default).

``build_parser()`` and ``main(argv) -> int`` are what the ``newmarket`` command calls.
The web libraries are imported here at the top, so a missing ``web`` extra is
reported by ``newmarket`` in one line before anything starts.
"""

from __future__ import annotations

import argparse
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
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"newmarket serve: error: --port {args.port} is out of range; allowed: 0..65535", file=sys.stderr)
        return 2
    from newmarket_env.web.app import create_app

    print(f"newmarket serve: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    except OSError as err:  # e.g. the port is taken
        print(f"newmarket serve: error: cannot listen on {args.host}:{args.port}: {err.strerror or err}",
              file=sys.stderr)
        return 1
    return 0
