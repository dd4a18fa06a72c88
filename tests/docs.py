"""Where the documentation's text lives, for the tests that hold it to the code.

The README is the front door (what the project is, the two commands, the chapters,
the layout); everything else is a page of the instructor's or the maintainer's
guide, ``guide/*.md``, built with the web book (``_toc.yml``'s parts "For
instructors" and "For maintainers").  A test that checks a number or a table the
documentation states reads it from here, so a page that moves moves in one place.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDE = ROOT / "guide"


def readme() -> str:
    return README.read_text(encoding="utf-8")


def guide_page(name: str) -> str:
    """The text of one guide page, e.g. ``guide_page("maintainer/versions")``."""
    return (GUIDE / f"{name}.md").read_text(encoding="utf-8")


def guide_pages() -> list[Path]:
    """Every page of the guides, sorted."""
    return sorted(GUIDE.rglob("*.md"))


def section(text: str, heading: str) -> list[str]:
    """The lines under ``heading`` (a whole line such as ``"## Benchmarks"``) up to the next
    heading of the same level."""
    level = heading.split(" ")[0]
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(level + " ")), len(lines))
    return lines[start:end]
