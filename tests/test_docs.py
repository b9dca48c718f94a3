"""The documentation stays readable and whole: a short README that opens with its two commands and
points to every guide, links that lead somewhere, decision ids that resolve, and no diary of the
work (README, BENCHMARKS.md and docs/ describe the product as it is; history is git's and the
CHANGELOG's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
#: What a newcomer reads first; the guides in docs/ hold the rest.
README_MAX_BYTES = 8 * 1024
#: Pages that describe the product as it is: no diary.
PRODUCT_PAGES = [README, ROOT / "BENCHMARKS.md", ROOT / "DEVELOPERS.md", *sorted(DOCS.glob("*.md"))]
#: Pages whose links are checked (the CHANGELOG's too: it links into the others).
LINKED_PAGES = [*PRODUCT_PAGES, ROOT / "CHANGELOG.md"]
DECISIONS = DOCS / "decisions.md"
#: Where code and tests cite decisions.
SOURCE_FOLDERS = ("tgbot", "engine", "tests", "benchmarks")
ARCHIVE = DOCS / "decisions-archive.md"

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
DECISION_ID = re.compile(r"\b([BE][1-9][0-9]?)\b")  # not a linter code such as E741 or B017
#: Where a decision entry starts: "**B33 – …" in decisions.md, "### B27 – …" in the archive.
ENTRY = re.compile(r"^(?:\*\*|#{2,4} )([BE][0-9]{1,3})\b", re.MULTILINE)
ORDINAL = (
    r"(?:this|last|previous|next|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|today's)"
)
DIARY = re.compile(
    rf"\b{ORDINAL} session\b|\byesterday\b|\btonight\b|\bthis morning\b|\bearlier today\b|\bthis week\b"
    r"|\blast week\b|\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b",
    re.IGNORECASE,
)


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def prose(text: str) -> str:
    """The text without fenced blocks and code spans: what reads as prose and links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation and emoji dropped, spaces to dashes."""
    text = re.sub(r"[*_`]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        base = slug(heading)
        name, n = base, 0
        while name in found:  # GitHub numbers repeated headings: name, name-1, name-2
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def test_the_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, (
        f"README.md is {size} bytes (at most {README_MAX_BYTES}): put the detail in docs/playing.md or "
        "docs/operating.md and link it"
    )


def test_the_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert first_block, "the README has no shell block"
    assert "\n## " not in text[: first_block.start()], "a section comes before the two commands"
    commands = [line.split("#")[0].strip() for line in first_block.group(1).strip().splitlines()]
    assert [command.split()[-2:] for command in commands] == [["make", "run"], ["make", "test"]], commands


def test_the_readme_links_every_page_of_docs() -> None:
    linked = {target.split("#")[0] for target in LINK.findall(prose(README.read_text(encoding="utf-8")))}
    missing = [rel(page) for page in sorted(DOCS.glob("*.md")) if rel(page) not in linked]
    assert not missing, f"README.md does not link {missing}"


@pytest.mark.parametrize("page", LINKED_PAGES, ids=rel)
def test_every_relative_link_resolves(page: Path) -> None:
    """A file that exists, and a heading of it when the link names one (GitHub's anchors)."""
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        path = (page.parent / path_part).resolve() if path_part else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading #{anchor} in {rel(path)}")
    assert not broken, f"{rel(page)}: {broken}"


def entries(path: Path) -> list[str]:
    return ENTRY.findall(path.read_text(encoding="utf-8"))


def test_decision_ids_are_unique_and_the_superseded_ones_are_archived() -> None:
    in_force = entries(DECISIONS)
    assert len(in_force) > 40 and len(in_force) == len(set(in_force)), "an id twice in decisions.md"
    archived = entries(ARCHIVE)
    assert archived and len(archived) == len(set(archived)), "an id twice in decisions-archive.md"
    text = DECISIONS.read_text(encoding="utf-8")
    assert not re.search(r"\bsuperseded\b", text, re.IGNORECASE), (
        "a superseded decision belongs in decisions-archive.md, with what replaced it"
    )
    for entry in re.split(r"\n(?=### )", ARCHIVE.read_text(encoding="utf-8"))[1:]:
        assert re.search(r"\*Superseded (?:in part )?by [BE][0-9]+", entry), (
            f"archived without what replaced it: {entry.splitlines()[0]}"
        )


def cited_ids() -> dict[str, set[str]]:
    """Decision id -> the files citing it: the code, the tests, the benchmarks and every page."""
    files = [
        *ROOT.glob("*.md"),
        *DOCS.glob("*.md"),
        *(path for folder in SOURCE_FOLDERS for path in (ROOT / folder).rglob("*.py")),
    ]
    cited: dict[str, set[str]] = {}
    for path in files:
        if path == Path(__file__).resolve():
            continue
        for found in DECISION_ID.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(found, set()).add(rel(path))
    return cited


def test_every_decision_id_cited_resolves() -> None:
    """Code and pages cite decisions by id (decisions.md B33): each names an entry of decisions.md or,
    once superseded, of decisions-archive.md. (A word such as B12 that is no decision shows here too:
    rephrase it.)"""
    known = set(entries(DECISIONS)) | set(entries(ARCHIVE))
    cited = cited_ids()
    assert {"B1", "B33", "E4"} <= set(cited)
    unknown = {found: sorted(where) for found, where in cited.items() if found not in known}
    assert not unknown, f"decision ids cited but in neither decisions.md nor the archive: {unknown}"


@pytest.mark.parametrize("page", PRODUCT_PAGES, ids=rel)
def test_no_diary_of_the_work(page: Path) -> None:
    """A line like "the third session measured…" ages the day it is written: say what the product
    does, with the figures' machine and spread; when it changed is git's and the CHANGELOG's."""
    hits = [
        f"{number}: {match.group(0)!r}"
        for number, line in enumerate(prose(page.read_text(encoding="utf-8")).splitlines(), 1)
        for match in DIARY.finditer(line)
    ]
    assert not hits, f"{rel(page)} reads as a diary: {hits}"
