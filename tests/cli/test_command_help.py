"""Every ``newmarket COMMAND --help`` is the help documented in docs/cli.md, word for word.

The reference is read by people choosing options before a long run; a help line changed by accident
(an option's meaning, its default, a capitalised sentence) shows here as a difference to review.
"""

from __future__ import annotations

import sys

import pytest

from newmarket_env.cli import COMMANDS, load_command
from newmarket_env.docs import generate as docs
from newmarket_env.util.cli_common import OneLineParser, prepare


@pytest.mark.skipif(sys.version_info[:2] != docs.HELP_PYTHON, reason="docs/cli.md holds this Python's argparse wording")
@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_help_is_the_documented_one(command):
    assert docs.command_help(command) == docs.documented_help(command)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_documented_help_names_every_option_of_the_parser(command):
    """On any Python: every long option the command's parser takes appears in its documented help."""
    place, _, extra = COMMANDS[command]
    parser = OneLineParser(prog=f"newmarket {command}")
    prepare(parser, load_command(place, extra).add_arguments)
    options = {flag for action in parser._actions for flag in action.option_strings if flag.startswith("--")}
    documented = docs.documented_help(command)
    assert options and all(option in documented for option in options)
