"""``newmarket train --help`` is the help documented in docs/cli.md, word for word.

The reference is read by people choosing options before a training run; a help line changed by accident
(an option's meaning, its default, a capitalised sentence) shows here as a difference to review.
"""

from __future__ import annotations

import sys

import pytest

from newmarket_env import docs


@pytest.mark.skipif(sys.version_info[:2] != docs.HELP_PYTHON, reason="docs/cli.md holds this Python's argparse wording")
def test_the_train_help_is_the_documented_one():
    assert docs.command_help("train") == docs.documented_help("train")


def test_the_documented_help_names_every_option_of_the_parser():
    from newmarket_env.cli_common import OneLineParser
    from newmarket_env.train.cli import add_arguments

    parser = OneLineParser(prog="newmarket train")
    add_arguments(parser)
    options = {flag for action in parser._actions for flag in action.option_strings if flag.startswith("--")}
    documented = docs.documented_help("train")
    assert options and all(option in documented for option in options)
