"""What a kind of table does is decided in one place (`tgbot/services/tables/`): the services and
render/ ask the game's table, and name its kind at most a few times elsewhere (issue "Decide,
then present"). A new branch on the kind outside that place fails here: give the table a hook."""

from __future__ import annotations

import re
from pathlib import Path

TGBOT = Path(__file__).resolve().parent.parent / "tgbot"
THE_PLACE = TGBOT / "services" / "tables"
#: What names a table's kind: the enum's members, the seat a practice table was, the chat id's range.
MENTION = re.compile(r"TableKind\.|ctx\.practising|of_chat\(")
MOST_MENTIONS = 3


def mentions() -> dict[str, int]:
    found: dict[str, int] = {}
    for folder in (TGBOT / "services", TGBOT / "render"):
        for path in sorted(folder.rglob("*.py")):
            if THE_PLACE in path.parents:
                continue
            count = len(MENTION.findall(path.read_text()))
            if count:
                found[path.relative_to(TGBOT.parent).as_posix()] = count
    return found


def test_the_table_kind_is_named_in_one_place() -> None:
    found = mentions()
    assert sum(found.values()) <= MOST_MENTIONS, found


def test_each_kind_has_its_table() -> None:
    from tgbot.services.tables import presenter_for
    from tgbot.tables import TableKind

    assert {presenter_for(kind).kind for kind in TableKind} == set(TableKind)
