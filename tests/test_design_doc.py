"""DESIGN.md stays a reference a newcomer can trust: short, every package on its map, every path it
names present in the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "DESIGN.md"
# A file path as DESIGN.md writes one: folders then a file with an extension (.py, .toml...).
PATH = re.compile(r"(?<![\w/.<])((?:[a-z_]+/)+[a-z_0-9]+\.(?:py|toml|md|sh|service))\b")


def named_paths(text: str) -> set[str]:
    return set(PATH.findall(text))


def missing_paths(text: str, root: Path = ROOT) -> list[str]:
    """Paths the text names that exist neither from the root nor inside the consolidator package."""
    return sorted(p for p in named_paths(text) if not ((root / p).exists() or (root / "consolidator" / p).exists()))


def test_design_is_at_most_400_lines() -> None:
    assert len(DESIGN.read_text(encoding="utf-8").splitlines()) <= 400


def long_prose_lines(text: str, limit: int = 100) -> list[str]:
    """Lines over the limit outside fenced code and table rows: prose is wrapped, never joined."""
    long, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not line.lstrip().startswith("|") and len(line) > limit:
            long.append(f"{number}: {line[:40]}... ({len(line)} characters)")
    return long


def test_design_prose_lines_are_at_most_100_characters() -> None:
    assert long_prose_lines(DESIGN.read_text(encoding="utf-8")) == []


def test_the_line_check_sees_a_long_line_but_not_tables_or_code() -> None:
    text = "\n".join(["| " + "x" * 120 + " |", "```", "y" * 120, "```", "short", "z" * 101])
    assert long_prose_lines(text) == [f"6: {'z' * 40}... (101 characters)"]


def test_the_map_names_every_package() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    packages = sorted(p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "consolidator").glob("*/__init__.py"))
    # `consolidator/facts/`, or a row naming several: `consolidator/facts/`, `contacts/`
    unnamed = [p for p in packages if f"`{p}/`" not in text and f"`{p.split('/', 1)[1]}/`" not in text]
    assert unnamed == []
    for top in ("hierarchy", "stores"):
        assert f"`{top}/`" in text


def test_every_path_the_design_and_readme_name_exists() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    assert len(named_paths(text)) > 20  # the pattern still reads the document
    assert missing_paths(text) == []
    assert missing_paths((ROOT / "README.md").read_text(encoding="utf-8")) == []


def test_the_path_check_sees_a_stale_path(tmp_path: Path) -> None:
    (tmp_path / "consolidator" / "core").mkdir(parents=True)
    (tmp_path / "consolidator" / "core" / "faults.py").write_text("")
    text = "The fault book (core/faults.py); the tick (consolidator/pipeline/tick.py)."
    assert missing_paths(text, tmp_path) == ["consolidator/pipeline/tick.py"]
