"""``python -m newmarket_env.eval.tournament ...``: see ``cli.py``."""

import sys

from newmarket_env.eval.tournament.cli import main

if __name__ == "__main__":
    sys.exit(main())
