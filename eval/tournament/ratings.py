"""openskill Plackett-Luce ratings, one update per session ranked by final chips."""

from __future__ import annotations

from collections.abc import Sequence

from newmarket_env.eval.tournament.play import GameResult


def plackett_luce_ratings(results: Sequence[GameResult], labels: Sequence[str]) -> list[dict[str, float]]:
    """``mu``, ``sigma`` and ``ordinal`` (mu - 3 sigma) per entrant after rating every session in order."""
    from openskill.models import PlackettLuce  # heavy optional import; only a summary needs it

    model = PlackettLuce()
    ratings = [model.rating(name=label) for label in labels]
    for result in results:  # schedule order, so the ratings do not depend on the workers
        teams = [[ratings[e]] for e in result.spec.seats]
        rated = model.rate(teams, scores=[float(c) for c in result.chips])
        for e, (new,) in zip(result.spec.seats, rated, strict=True):
            ratings[e] = new
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3.0 * r.sigma} for r in ratings]
