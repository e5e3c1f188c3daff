"""``--save-records``: every session of a tournament kept (gzipped JSON lines), each one replayable."""

from __future__ import annotations

import csv
import gzip
import json
import os
import stat

import pytest

from newmarket_env import cli
from newmarket_env.eval.tournament.api import plan_tournament
from newmarket_env.eval.tournament.cli import main
from newmarket_env.eval.tournament.config import TournamentConfig
from newmarket_env.records import verify


def test_every_session_is_saved_and_replays(tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        main(
            [
                "--agents",
                "greedy,random,control,random",
                "--blocks",
                "2",
                "--workers",
                "1",
                "--resamples",
                "50",
                "--set",
                "num_deals=2",
                "--quiet",
                "--save-records",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    with gzip.open(out / "records.jsonl.gz", "rt", encoding="utf-8") as fh:
        entries = [json.loads(line) for line in fh]
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert len(entries) * 4 == len(rows)  # one record per session, four seats per session in games.csv
    for k, entry in enumerate(entries):
        record = entry["record"]
        assert verify(record)  # the engine rebuilds exactly this session from the record alone
        seats = rows[4 * k : 4 * k + 4]
        assert [int(r["block"]) for r in seats] == [entry["block"]] * 4
        assert entry["seats"] == [r["agent"] for r in seats]
        assert record["agents"] == entry["seats"]  # the record itself says who sat where
        start = record["rules"]["starting_chips"]
        assert [c - start for c in record["deals"][-1]["chips"]] == [int(r["chips"]) for r in seats]
    # Session 3 opens in the terminal replay (and in the web app: tests/web/test_api.py).
    assert cli.main(["replay", str(out / "records.jsonl.gz"), "--game", "3", "--all", "--verify"]) == 0
    shown = capsys.readouterr().out
    assert "final balances" in shown
    # The replay names each seat's agent, as games.csv has it.
    assert "the players: " + ", ".join(f"player_{k} ({r['agent']})" for k, r in enumerate(rows[8:12])) in shown
    assert f"player_0 ({rows[8]['agent']}) " in shown.split("==== deal 1")[1]
    # The results folder gets the modes os.makedirs gives a folder here (not a temporary folder's 0700).
    os.makedirs(tmp_path / "plain")
    assert stat.S_IMODE(out.stat().st_mode) == stat.S_IMODE((tmp_path / "plain").stat().st_mode)
    assert cli.main(["replay", str(out / "records.jsonl.gz"), "--all"]) == 2
    assert "pick one with --game K" in capsys.readouterr().err


def test_no_records_unless_asked(tmp_path):
    out = tmp_path / "run"
    assert (
        main(
            [
                "--agents",
                "random,random,random,random",
                "--blocks",
                "1",
                "--workers",
                "1",
                "--resamples",
                "20",
                "--set",
                "num_deals=1",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert not (out / "records.jsonl.gz").exists()


def test_save_records_must_be_a_bool():
    with pytest.raises(ValueError, match=r"save_records='yes' is not allowed; allowed: True or False"):
        plan_tournament(TournamentConfig(agents=("random",) * 4, blocks=1, save_records="yes"))


def test_a_small_run_is_noted_once(tmp_path, capsys):
    argv = ["--agents", "random,lowest,random,lowest", "--blocks", "1", "--workers", "1", "--resamples", "20"]
    assert main([*argv, "--set", "num_deals=1", "--out", str(tmp_path / "run")]) == 0
    said = capsys.readouterr()
    assert (said.out + said.err).lower().count("only 1 deal block(s)") == 1
