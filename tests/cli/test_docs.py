"""The committed docs are what ``python -m newmarket_env.docs`` generates from the code."""

from __future__ import annotations

import re

from newmarket_env.docs import generate as docs
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import VARIANTS
from newmarket_env.observation.layout import FLAT_SIZE, PIECES, offsets

GENERATED = [
    docs.REPO_ROOT / "docs" / "observation.md",
    docs.REPO_ROOT / "docs" / "actions.md",
    docs.REPO_ROOT / "docs" / "guide" / "environment.md",
]


def test_committed_docs_match_the_code():
    stale = docs.stale_files()
    assert not stale, f"regenerate with `python -m newmarket_env.docs`: {[str(p) for p in stale]}"


def test_check_mode_exit_code():
    assert docs.main(["--check"]) == 0


def test_every_piece_is_documented_at_its_offsets():
    text = GENERATED[0].read_text(encoding="utf-8")
    assert f"shape ({FLAT_SIZE},)" in text
    for piece in PIECES:
        where = offsets()[piece.name]
        span = str(where.start) if piece.size == 1 else f"{where.start}-{where.stop - 1}"
        assert re.search(rf"^\| `{piece.name}` \| {span} \| {piece.size} \|", text, re.M), piece.name


def test_every_action_id_is_listed():
    text = GENERATED[1].read_text(encoding="utf-8").split("## Every id")[1]
    ids = re.findall(r"^\| (\d+) \| `", text, re.M)
    assert [int(i) for i in ids] == list(range(NUM_ACTIONS))


def test_readme_keeps_its_first_commands_and_names_every_variant():
    readme = (docs.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    top = readme.split("\n## ")[0]
    assert "make tournament" in top.splitlines()[3] and "make test " in top.splitlines()[4]
    assert all(f"`{name}`" in readme for name in VARIANTS)


def test_the_guide_keeps_its_generated_blocks():
    guide = GENERATED[2].read_text(encoding="utf-8")
    for name in docs.GUIDE_SECTIONS:
        assert f"<!-- BEGIN {name} -->" in guide and f"<!-- END {name} -->" in guide


def test_every_variant_has_a_page_with_its_picture():
    index = (docs.REPO_ROOT / "docs" / "variants" / "index.md").read_text(encoding="utf-8")
    for name in VARIANTS:
        page = (docs.REPO_ROOT / "docs" / "variants" / f"{name}.md").read_text(encoding="utf-8")
        assert f"({name}.md)" in index and f"]({name}.gif)" in page
        assert (docs.REPO_ROOT / "docs" / "variants" / f"{name}.gif").stat().st_size > 10_000


def test_a_stale_file_is_found_and_rewritten(tmp_path):
    for rel, sections in docs.SECTION_FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("".join(f"<!-- BEGIN {n} -->\nold\n<!-- END {n} -->\n" for n in sections))
    assert docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert docs.main(["--root", str(tmp_path)]) == 0
    assert docs.stale_files(tmp_path) == []
    assert "| 52 | `KEEP` |" in (tmp_path / "docs" / "guide" / "environment.md").read_text()
    assert "`lowest_club`" in (tmp_path / "docs" / "variants" / "newbury.md").read_text()
    assert "| `auction_end` |" in (tmp_path / "docs" / "contract.md").read_text()


def test_a_file_without_its_block_is_a_one_line_error(tmp_path, capsys):
    for rel, sections in docs.SECTION_FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("".join(f"<!-- BEGIN {n} -->\nold\n<!-- END {n} -->\n" for n in sections))
    (tmp_path / "docs" / "contract.md").write_text("no generated block here\n")
    assert docs.main(["--check", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "docs/contract.md has no '<!-- BEGIN events -->'" in err


def test_variant_pages_list_the_decisions_the_rules_allow():
    # Worked from docs/rules.md: every preset leads; Michigan adds the widow and its auction, Newbury the
    # discards; Newmarket, Hoyle and Arnold have nothing else to decide.
    from newmarket_env.docs.variant_pages import decisions_met
    from newmarket_env.engine.types import Decision

    assert decisions_met("newmarket") == [Decision.LEAD]
    assert decisions_met("michigan") == [Decision.WIDOW, Decision.BID, Decision.LEAD]
    assert decisions_met("newbury") == [Decision.DISCARD, Decision.LEAD]
