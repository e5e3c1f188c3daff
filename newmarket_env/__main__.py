"""``python -m newmarket_env``: the ``newmarket`` command (play, replay, tournament, train, bench)."""

import sys

from newmarket_env.cli import main

if __name__ == "__main__":
    sys.exit(main())
