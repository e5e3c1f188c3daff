"""results.json and games.csv hold exactly the fields docs/tournament_results.md names, in both directions.

Other code reads these files (notebooks, the web view, scripts comparing runs), so a field renamed or
dropped is a broken reader even when every figure is right. The page is the reference, written for
those readers; the test reads its tables and compares them with what a real run writes.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.eval.tournament.report import write_outputs

PAGE = Path(__file__).resolve().parents[2] / "docs" / "tournament_results.md"
#: An object keyed by agent label, each value with documented fields.
MAPS_BY_LABEL = {"speed.agents"}
#: Objects whose keys are data (agent labels, rules parameters, agent options), documented as a whole.
OPAQUE = {"rules", "config.rules", "agents[].options", "skipped_agents", "config.agent_options"}


def _documented(section: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8").split(f"## {section}")[1].split("\n## ")[0]
    return re.findall(r"^\| `([^`]+)` \|", text, re.M)


def _paths(value, prefix: str = "") -> list[str]:
    """Every field path of a JSON value, lists as ``[]`` and label-keyed maps as ``<agent>``."""
    found = []
    if isinstance(value, dict):
        if prefix in OPAQUE:
            return found
        for key, item in value.items():
            name = "<agent>" if prefix in MAPS_BY_LABEL else key
            path = f"{prefix}.{name}" if prefix else name
            found.append(path)
            found += _paths(item, path)
    elif isinstance(value, list):
        for item in value:
            found += _paths(item, f"{prefix}[]")
    return found


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "results"
    result = run_tournament(
        TournamentConfig(
            agents=("greedy", "random", "random"),
            players=3,
            blocks=2,
            resamples=20,
            save_records=True,
            rules={"num_deals": 2, "boodles": ("AS", "KS", "QS", "JS")},
        )
    )
    write_outputs(result, str(out), command="newmarket tournament ...")
    return out


def test_results_json_has_exactly_the_documented_fields(written):
    data = json.loads((written / "results.json").read_text(encoding="utf-8"))
    found = set(_paths(data))
    # the overrides as given (JSON lists for tuples), and the rules played with them applied
    assert data["config"]["rules"] == {"num_deals": 2, "boodles": ["AS", "KS", "QS", "JS"]}
    assert data["rules"]["num_deals"] == 2 and data["rules"]["num_players"] == 3
    documented = set(_documented("results.json"))
    assert found - documented == set(), "written but not documented"
    assert documented - found == set(), "documented but not written"


def test_games_csv_has_the_documented_columns_in_order(written):
    with open(written / "games.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == _documented("games.csv")


def test_the_page_names_every_file_of_the_folder(written):
    table = PAGE.read_text(encoding="utf-8").split("## results.json")[0]
    files = set(re.findall(r"^\| `([^`]+?)/?` \|", table, re.M))
    assert {p.name for p in written.iterdir()} <= files
