"""The offline model's layout: one lexicon (each word list once, one rarity lookup)."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

from consolidator.model.offline import words

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = ROOT / "consolidator" / "model" / "offline"
DOMAIN = ROOT / "consolidator" / "domain.py"
WORDS = OFFLINE / "words.py"


def offline_files() -> list[Path]:
    return sorted(OFFLINE.rglob("*.py"))


def literal_words(node: ast.AST) -> list[str] | None:
    """The words of a word-list literal: frozenset/set/tuple of "a b c".split() or of string
    literals, a tuple/list/set of strings, or a regex alternation "a|b|c"; else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple") \
            and len(node.args) == 1:
        return literal_words(node.args[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
            and not node.args and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return node.func.value.value.split()
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)) and node.elts \
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"[a-z' -]+(?:\|[a-z' -]+)+", node.value):
        return node.value.split("|")
    return None


def word_lists(path: Path) -> dict[str, frozenset[str]]:
    """Module-level word lists of `path` by name (lists of two words or more)."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            listed = literal_words(node.value)
            if listed and len(set(listed)) > 1:
                found.update({f"{path.relative_to(ROOT).as_posix()}:{t.id}": frozenset(listed)
                              for t in targets if isinstance(t, ast.Name) and t.id != "__all__"})
    return found


def all_word_lists() -> dict[str, frozenset[str]]:
    return {k: v for path in [*offline_files(), DOMAIN] for k, v in word_lists(path).items()}


def test_the_helper_reads_every_kind_of_word_list(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text('A = frozenset("x y".split())\nB = ("x", "y")\nC = "x|y"\nD = {"x", "y"}\n'
                      'E = frozenset({"x", "y"})\nF = "x"\nG = 3\n', encoding="utf-8")
    lists = {k: v for k, v in ((n.targets[0].id, literal_words(n.value)) for n in ast.parse(source.read_text()).body)}
    assert lists == {"A": ["x", "y"], "B": ["x", "y"], "C": ["x", "y"], "D": ["x", "y"], "E": ["x", "y"],
                     "F": None, "G": None}


def test_no_two_word_lists_have_the_same_words() -> None:
    """Every word list of the offline model and the domain is stated once (words.py holds the shared ones)."""
    lists = all_word_lists()
    assert len(lists) > 40
    same = [(a, b) for (a, x), (b, y) in itertools.combinations(sorted(lists.items()), 2) if x == y]
    assert same == []


def test_the_greetings_and_the_agent_names_are_listed_once() -> None:
    """No list but words.GREETINGS (and the lists built from it) holds every greeting; no
    literal but domain.AGENT_SPEAKERS names the agent."""
    greetings = set(words.GREETINGS)
    holders = {k for k, v in all_word_lists().items() if greetings <= v}
    assert holders == {"consolidator/model/offline/words.py:GREETINGS"}
    assert words.ADDRESS_OPENERS[:len(words.GREETINGS)] == words.GREETINGS == words.CALLING_OPENERS[:len(words.GREETINGS)]
    agents = {k for k, v in all_word_lists().items() if {"assistant", "agent"} <= v}
    assert agents == {"consolidator/domain.py:AGENT_SPEAKERS"}
    assert words.AGENT_SPEAKERS <= words.NAME_STOPWORDS and greetings <= words.NAME_STOPWORDS


def test_one_rarity_lookup() -> None:
    """Only words.py imports wordfreq: every rarity of the offline model is words.zipf."""
    importers = {p.name for p in offline_files() if re.search(r"^\s*(?:from|import) wordfreq\b", p.read_text(), re.M)}
    assert importers == {"words.py"}


# Text tools (sentences, words, compaction, cuts, dates, the lexicon) are read by both;
# extraction (facts, contacts, tasks) never imports the summariser, nor the summariser extraction.
SUMMARISER = {"summarise", "summaryform", "summaryrules", "summaryselect"}
EXTRACTION = {"clauses", "contacts", "extraction", "factshare", "lineclaims", "mentions", "names", "parse", "patterns", "replies",
              "referents", "restate", "rules", "shown", "suggest", "tasks", "taskdue", "taskoffers", "worth", "reflect",
              "details"}
TEXT_TOOLS = {"text", "text_normal", "text_compact", "text_cut", "reldates", "lexicon", "words"}


def offline_imports(name: str) -> set[str]:
    tree = ast.parse((OFFLINE / f"{name}.py").read_text(encoding="utf-8"))
    prefix = "consolidator.model.offline."
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(prefix):
            found.add(node.module[len(prefix):].split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module == "consolidator.model.offline":
            found.update(alias.name for alias in node.names)
    return found


def test_every_offline_module_has_a_side() -> None:
    sides = SUMMARISER | EXTRACTION | TEXT_TOOLS | {"__init__", "model", "passes", "tuning", "tables"}
    assert {p.stem for p in offline_files()} == sides


def test_extraction_never_imports_the_summariser() -> None:
    assert {m: sorted(offline_imports(m) & SUMMARISER) for m in EXTRACTION if offline_imports(m) & SUMMARISER} == {}


def test_the_summariser_and_the_text_tools_never_import_extraction() -> None:
    for side in (SUMMARISER, TEXT_TOOLS):
        assert {m: sorted(offline_imports(m) & EXTRACTION) for m in side if offline_imports(m) & EXTRACTION} == {}
    assert {m: sorted(offline_imports(m) & SUMMARISER) for m in TEXT_TOOLS if offline_imports(m) & SUMMARISER} == {}


def test_no_test_switches_an_offline_module_constant() -> None:
    """The weights are tuning.OfflineSettings, built per test (dataclasses.replace), never patched in."""
    patched = {p.name for p in (ROOT / "tests").rglob("*.py")
               if re.search(r"monkeypatch\.setattr\(\s*(?:summarise|summaryform|summaryrules|summaryselect|extraction|passes|factshare|text_compact|text_cut|model|lexicon|words)\b",
                            p.read_text(encoding="utf-8"))}
    assert patched == set()
