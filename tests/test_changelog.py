"""CHANGELOG.md keeps up with the versions: the package's (``newmarket --version``) and the env's id."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from newmarket_env import cli
from newmarket_env.envs.aec import ENV_NAME
from newmarket_env.envs.registration import GYMNASIUM_ID, PETTINGZOO_ID

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"


def _sections() -> dict[str, str]:
    """Release heading's version ("0.1.0", "Unreleased") -> the text of its section."""
    parts = re.split(r"^## \[([^\]]+)\].*$", CHANGELOG.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_version_is_the_installed_distributions(capsys):
    # pyproject's version, as pip recorded it: a bump in one place and not the other fails here
    installed = importlib.metadata.version("newmarket-env")
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"newmarket {installed}\n"


def test_the_current_version_has_a_section_naming_the_env_ids():
    version = importlib.metadata.version("newmarket-env")
    sections = _sections()
    assert version in sections, f"CHANGELOG.md has no '## [{version}]' section"
    for env_id in (ENV_NAME, GYMNASIUM_ID, PETTINGZOO_ID):
        assert f"`{env_id}`" in sections[version]


def test_the_env_versions_table_has_a_row_for_the_current_env_id():
    table = CHANGELOG.read_text(encoding="utf-8").split("## Environment versions", 1)[1].split("\n## ", 1)[0]
    assert re.search(rf"^\| `{re.escape(ENV_NAME)}`", table, flags=re.MULTILINE)
