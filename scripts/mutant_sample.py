"""Helper of scripts/mutation.sh, run inside a mutmut work folder (the one holding ``mutants/``).

``mutant_sample.py N``     prints a fixed sample of N mutant names (seed ``$SEED``, default 17, over the
sorted names), one a line.
``mutant_sample.py --widen``  widens mutmut's test selection to whole test files (see :func:`widen`).
``mutant_sample.py --score``  prints ``killed/scored = P% [95% interval] (survived S, no tests T, timeout O)``.

The score counts every checked mutant: killed (a test failed, or the run timed out) over killed plus
survived plus "no tests" (a mutant no selected test reaches is a mutant the tests miss).
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
from pathlib import Path

from mutmut.stats import status_by_exit_code

SEED = int(os.environ.get("SEED", "17"))
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson_interval(killed: int, scored: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a proportion: a sample's score is an estimate of the
    module's, and the interval says how far off a sample of this size may be.

    >>> [round(100 * x, 1) for x in wilson_interval(45, 50)]
    [78.6, 95.7]
    """
    if scored == 0:
        return 0.0, 1.0
    p, z2 = killed / scored, Z95 * Z95
    centre = (p + z2 / (2 * scored)) / (1 + z2 / scored)
    half = Z95 * math.sqrt(p * (1 - p) / scored + z2 / (4 * scored * scored)) / (1 + z2 / scored)
    return centre - half, centre + half


def exit_codes() -> dict[str, int | None]:
    """Mutant name -> exit code of its test run (None: not run), over every ``.meta`` file."""
    codes: dict[str, int | None] = {}
    for meta in Path("mutants").rglob("*.py.meta"):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def score(codes: dict[str, int | None]) -> str:
    counts: dict[str, int] = {}
    for code in codes.values():
        status = status_by_exit_code[code]
        counts[status] = counts.get(status, 0) + 1
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    scored = killed + counts.get("survived", 0) + counts.get("no tests", 0)
    percent = 100.0 * killed / scored if scored else 0.0
    low, high = wilson_interval(killed, scored)
    return (
        f"{killed}/{scored} = {percent:.1f}% killed [95% interval {100 * low:.1f}-{100 * high:.1f}%] "
        f"(survived {counts.get('survived', 0)}, "
        f"no tests {counts.get('no tests', 0)}, timeout {counts.get('timeout', 0)}, "
        f"not run {counts.get('not checked', 0)}, of {len(codes)} generated)"
    )


def widen(stats_path: Path = Path("mutants/mutmut-stats.json")) -> int:
    """Give every function all the tests of each test file that reaches it; returns how many were added.

    Why: mutmut 3 ties a function to the tests during whose run it was called, teardown included, but a
    module-scoped fixture runs once, inside the first test of its file. A function called only by such a
    fixture (a tournament played once for a file's assertions) is then tested by that first test alone,
    and a mutant of it "survives" assertions that the suite does make. Widening to the file restores them.
    """
    data = json.loads(stats_path.read_text())
    by_file: dict[str, set[str]] = {}
    for test in data["duration_by_test"]:
        test = test.removeprefix("mutants/")
        by_file.setdefault(test.split("::")[0], set()).add(test)
    added = 0
    for function, tests in data["tests_by_mangled_function_name"].items():
        wider = set(tests)
        for test in tests:
            wider |= by_file.get(test.split("::")[0], set())
        added += len(wider) - len(tests)
        data["tests_by_mangled_function_name"][function] = sorted(wider)
    tmp = stats_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, stats_path)
    return added


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--widen":
        print(f"test selection widened to whole test files: {widen()} (function, test) links added", file=sys.stderr)
        return 0
    if argv and argv[0] == "--score":
        print(score(exit_codes()))
        return 0
    names = sorted(exit_codes())
    size = int(argv[0])
    chosen = names if size >= len(names) else sorted(random.Random(SEED).sample(names, size))
    print("\n".join(chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
