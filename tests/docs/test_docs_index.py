"""The docs home lists every page, and every relative link in the docs leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import REPO

DOCS = REPO / "docs"
# Pages other branches of issue 12 add (packs, lifecycle); linked before they land.
PENDING = {
    "docs/how-to/write-a-pack.md",
    "docs/how-to/recover-a-broken-install.md",
}
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.DOTALL | re.MULTILINE)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation gone, spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(m) for m in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def md_pages() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def test_the_docs_home_lists_every_page() -> None:
    home = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = {
        (DOCS / m["target"].split("#")[0]).resolve().relative_to(REPO).as_posix()
        for m in LINK.finditer(home)
        if not m["target"].startswith(("http", "#"))
    }
    pages = {p.relative_to(REPO).as_posix() for p in DOCS.rglob("*.md") if p.name != "README.md"}
    assert pages - linked == set(), "add these pages to docs/README.md"
    for line in home.splitlines():
        if line.startswith("- ["):
            assert " — " in line, f"one line each, with what the page is for: {line}"


def test_every_relative_link_and_anchor_exists() -> None:
    broken = []
    for page in md_pages():
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for m in LINK.finditer(text):
            target = m["target"]
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            rel = dest.relative_to(REPO).as_posix() if dest.is_relative_to(REPO) else str(dest)
            where = f"{page.relative_to(REPO)}: {target}"
            if not dest.exists():
                if rel not in PENDING:
                    broken.append(f"{where} (no such file)")
                continue
            if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{where} (no such heading)")
    assert not broken, "\n".join(broken)
