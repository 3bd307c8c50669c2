"""The README and the manual in ``docs/``: links resolve, no page is orphaned, the README stays a front door, and
the CLI reference matches the parser."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import tool

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_MAX_LINES = 200
"""The front door's bound (issue 29: about 200 lines at most)."""

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def pages() -> list[Path]:
    """The README and every Markdown page of ``docs/``."""
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def prose(path: Path) -> str:
    """The page's text without its fenced code blocks (a link inside one is an example, not a link)."""
    kept, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def links(path: Path) -> list[str]:
    """The relative link targets of a page (web addresses and mail links left out)."""
    found = [a or b for a, b in LINK.findall(prose(path))]
    return [target for target in found if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, spaces to '-', punctuation other than '-' and '_' dropped."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a page, with GitHub's ``-1``, ``-2`` suffixes on repeated ones."""
    names, counts = set(), {}
    for line in prose(path).splitlines():
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            name = anchor(match.group(1))
            count = counts.get(name, 0)
            names.add(f"{name}-{count}" if count else name)
            counts[name] = count + 1
    return names


def broken(path: Path) -> list[str]:
    """The links of ``path`` whose file is missing or whose ``#anchor`` names no heading of that file."""
    bad = []
    for target in links(path):
        file, _, fragment = target.partition("#")
        goal = (path.parent / file).resolve() if file else path
        if not goal.exists():
            bad.append(f"{target} (no such file)")
        elif fragment and goal.suffix == ".md" and fragment not in anchors(goal):
            bad.append(f"{target} (no heading with that anchor)")
    return bad


def reachable() -> set[Path]:
    """The Markdown pages reached by following links from the README."""
    seen, todo = set(), [README]
    while todo:
        page = todo.pop()
        if page in seen or not page.exists():
            continue
        seen.add(page)
        for target in links(page):
            file = target.partition("#")[0]
            if file.endswith(".md"):
                todo.append((page.parent / file).resolve())
    return seen


def test_every_relative_link_resolves():
    """Every relative link of the README and docs/*.md names a file that exists and, with #anchor, a heading."""
    bad = {page.relative_to(ROOT).as_posix(): broken(page) for page in pages()}
    assert not {page: targets for page, targets in bad.items() if targets}


def test_no_docs_page_is_orphaned():
    """Every docs/*.md is reached from the README through links."""
    orphans = sorted(p.relative_to(ROOT).as_posix() for p in pages() if p.resolve() not in reachable())
    assert not orphans, f"not linked from the README or a page it links: {orphans}"


def test_every_docs_page_says_what_it_covers_and_links_back():
    """Each docs/*.md starts with a title, then a one-line statement of what it covers with a link to the README."""
    for page in pages()[1:]:
        lines = page.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# ") and lines[1] == "", page.name
        assert "](../README.md)" in lines[2], page.name


def test_the_readme_is_a_front_door():
    """The README stays at most README_MAX_LINES lines and keeps the two commands and the title the wheel shows."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert text.startswith("# Voice Studio\n")
    assert "make run" in text and "make test" in text


def test_the_cli_reference_is_current():
    """docs/cli.md is what tools/cli_reference.py generates from the parser today."""
    cli_reference = tool("cli_reference")
    written = cli_reference.OUTPUT.read_text(encoding="utf-8")
    assert written == cli_reference.reference(), f"docs/cli.md is stale: run `{cli_reference.REGENERATE}`"


def test_anchor_follows_githubs_rule():
    """Headings become GitHub's anchors: lowercase, spaces to '-', punctuation but '-' and '_' dropped."""
    assert anchor("ONNX-only install (no torch; Raspberry Pi)") == "onnx-only-install-no-torch-raspberry-pi"
    assert anchor("Piper's network in torch") == "pipers-network-in-torch"
    assert anchor("Compare page: Listen") == "compare-page-listen"
    assert anchor("`voice-studio` dataset_cache") == "voice-studio-dataset_cache"
