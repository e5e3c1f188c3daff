"""Session records, for every front end: read them (``reading``), write them (``writing``), check that they
are what they say (``verifying``) and tell them deal by deal (``paging``).

The terminal game (``newmarket replay``), the web app's replays, the tournaments' ``records.jsonl.gz`` and
the OpenSpiel and training tools share these, below all of them; none of them imports another front end
for it. docs/contract.md, "The record of a session", says what a record holds.
"""

from newmarket_env.records.paging import deal_lines, record_names, show_record
from newmarket_env.records.reading import (
    MAX_RECORD_TEXT,
    MAX_RECORDS,
    MAX_RECORDS_TEXT,
    VIEW_KEYS,
    RecordTooLarge,
    check_record,
    count_decisions,
    load_session,
    pick_record,
    read_records,
)
from newmarket_env.records.verifying import NotGenuine, check_genuine, first_difference, verify
from newmarket_env.records.writing import PERSON, save_record, write_lines

__all__ = [
    "MAX_RECORDS",
    "NotGenuine",
    "MAX_RECORDS_TEXT",
    "MAX_RECORD_TEXT",
    "PERSON",
    "VIEW_KEYS",
    "RecordTooLarge",
    "check_genuine",
    "check_record",
    "count_decisions",
    "deal_lines",
    "first_difference",
    "load_session",
    "pick_record",
    "read_records",
    "record_names",
    "save_record",
    "show_record",
    "verify",
    "write_lines",
]
