"""The timeline page: both ladders of a scope as rows of blocks, in one self-contained HTML file.

A pure function of `TimelineData` (gathered by timeline_data.py): no database, no clock, no
network. Everything is inline (SVG, CSS, script; no external URL at all), so the page opens
from a file anywhere, offline. Each rung is a row, the highest on top; a block spans its
window (days for the time ladder, interactions for the count ladder). Clicking a block shows
its window, version, size and summary in the side panel, highlights the blocks it was
written from (its sources, one rung down) and the blocks that read it, and draws the links;
`#b=<ref>` in the URL selects a block on load. Every text from the stores is escaped: in the
markup by html.escape, in the embedded JSON by escaping '<', '>' and '&', and the script
only ever sets textContent.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from html import escape

from consolidator.snapshots.timeline_assets import LEGEND, SCRIPT, STYLE

ROW_HEIGHT = 30
ROW_GAP = 10
AXIS_HEIGHT = 24
TARGET_WIDTH = 860  # px the drawn range aims at (beside the panel in a 1400 px window) before it scrolls
MIN_UNIT_PX = {"time": 5.0, "count": 5.0}
MAX_UNIT_PX = 48.0
CHAR_PX = 6.6  # average width of a character of the block labels (11px sans-serif)
LABEL_GAP_PX = 16  # px kept free after an axis label; a label that would overlap is left out


@dataclass(frozen=True)
class TimelineBlock:
    """One window of one rung, drawn from unit `start` to `stop` (clipped to the range shown)."""

    ref: str  # "<ladder>/<rung>/<key>": the window, any version
    ladder: str
    rung: str
    start: int
    stop: int
    label: str  # "2025-W02", "interactions 11-20"
    short: str  # what fits inside a narrow block: "W02", "11-20"
    window: str  # the whole window in words, even where the drawing is clipped
    state: str  # summarized | reused | passed | empty | pending | held
    version: int | None = None
    tokens: int | None = None
    text: str = ""
    sources: tuple[str, ...] = ()  # refs of the blocks it was written from
    messages: int = 0  # messages it was written from (a base window)
    notes: tuple[str, ...] = ()  # why it is held or pending; newer messages waiting


@dataclass(frozen=True)
class TimelineLadder:
    kind: str  # "time" | "count"
    rungs: tuple[str, ...]  # base first
    first: int  # the units drawn: [first, stop)
    stop: int
    ticks: tuple[tuple[int, str], ...]  # (unit, label) along the axis
    blocks: tuple[TimelineBlock, ...]
    caption: str  # what the range is, and what was left out of it


@dataclass(frozen=True)
class TimelineData:
    scope: str
    generated_at: str
    summary: str  # one line: messages, interactions, newest message
    ladders: tuple[TimelineLadder, ...] = field(default_factory=tuple)


def render_timeline(data: TimelineData) -> str:
    """The whole page as one HTML string."""
    sections = "\n".join(_ladder_section(ladder) for ladder in data.ladders)
    details = {b.ref: _details(b) for ladder in data.ladders for b in ladder.blocks}
    readers: dict[str, list[str]] = {}
    for ladder in data.ladders:
        for block in ladder.blocks:
            for source in block.sources:
                readers.setdefault(source, []).append(block.ref)
    for ref, refs in readers.items():
        if ref in details:
            details[ref]["readers"] = refs
    title = f"Timeline of {data.scope}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{escape(title)}</h1>
<p class="meta">{escape(data.summary)} &middot; generated {escape(data.generated_at)}</p>
<p class="legend">{LEGEND}</p>
<p class="hint">Click a block: its summary on the right, the blocks it was written from outlined
in orange and linked, the blocks that read it in purple. Esc clears.</p>
</header>
<div class="page">
<main>
{sections or '<p class="empty-note">No summaries yet: run <code>consolidator run --once</code> first.</p>'}
</main>
<aside id="panel"><p class="placeholder">Select a block to read its summary.</p></aside>
</div>
<script type="application/json" id="timeline-data">{_script_json(details)}</script>
<script>{SCRIPT}</script>
</body>
</html>
"""


def unit_px(ladder: TimelineLadder) -> float:
    """Pixels per unit: the range fills about TARGET_WIDTH, within the ladder's bounds."""
    units = max(1, ladder.stop - ladder.first)
    return max(MIN_UNIT_PX[ladder.kind], min(MAX_UNIT_PX, TARGET_WIDTH / units))


def _ladder_section(ladder: TimelineLadder) -> str:
    px = unit_px(ladder)
    rows = list(reversed(ladder.rungs))  # the highest rung on top
    width = round((ladder.stop - ladder.first) * px) + 2
    height = len(rows) * (ROW_HEIGHT + ROW_GAP) + AXIS_HEIGHT
    by_rung: dict[str, list[TimelineBlock]] = {}
    for block in ladder.blocks:
        by_rung.setdefault(block.rung, []).append(block)
    shapes = []
    for row, rung in enumerate(rows):
        y = row * (ROW_HEIGHT + ROW_GAP)
        shapes.append(f'<rect class="lane" x="0" y="{y}" width="{width}" height="{ROW_HEIGHT}"/>')
        shapes += [_block_shape(block, ladder.first, px, y) for block in by_rung.get(rung, [])]
    shapes.append(_axis(ladder, px, len(rows) * (ROW_HEIGHT + ROW_GAP), width))
    labels = "".join(f'<div class="rung-label" style="height:{ROW_HEIGHT}px;margin-bottom:{ROW_GAP}px">'
                     f'{escape(_rung_title(ladder.kind, rung))}</div>' for rung in rows)
    name = "Time ladder (by date)" if ladder.kind == "time" else "Count ladder (by interaction number)"
    return f"""<section class="ladder" data-ladder="{ladder.kind}">
<h2>{name}</h2>
<p class="caption">{escape(ladder.caption)}</p>
<div class="rows"><div class="labels">{labels}</div>
<div class="scroll"><svg class="chart" id="chart-{ladder.kind}" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(name)}">
<defs><pattern id="hatch-{ladder.kind}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" class="hatch-bg"/><line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern></defs>
{chr(10).join(shapes)}
<g class="links"></g>
</svg></div></div>
</section>"""


def _block_shape(block: TimelineBlock, first: int, px: float, y: int) -> str:
    x = (block.start - first) * px
    w = max(1.0, (block.stop - block.start) * px - 1)
    classes = f"block {block.state}" + (" stale" if any(n.startswith("newer") for n in block.notes) else "")
    fill = f' style="fill:url(#hatch-{block.ladder})"' if block.state == "pending" else ""
    tip = " \u00b7 ".join(p for p in (block.label, block.window, _state_words(block), _size_words(block)) if p)
    label = next((t for t in (block.label, block.short) if len(t) * CHAR_PX + 6 <= w), "")
    text = (f'<text x="{x + w / 2:.1f}" y="{y + ROW_HEIGHT / 2 + 4}" text-anchor="middle">{escape(label)}</text>'
            if label else "")
    return (f'<g class="{classes}" id="{escape("b:" + block.ref)}" data-ref="{escape(block.ref)}" '
            f'data-ladder="{block.ladder}" data-rung="{escape(block.rung)}" '
            f'data-sources="{escape(" ".join(block.sources))}" tabindex="0">'
            f'<title>{escape(tip)}</title>'
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW_HEIGHT}" rx="3"{fill}/>{text}</g>')


def _axis(ladder: TimelineLadder, px: float, y: int, width: int) -> str:
    parts = [f'<line class="axis" x1="0" y1="{y}" x2="{width}" y2="{y}"/>']
    free_from = 0.0  # where the previous label ends, plus a gap
    for unit, label in ladder.ticks:
        x = (unit - ladder.first) * px
        if x < free_from or x > width - 20:
            continue
        free_from = x + len(label) * CHAR_PX + LABEL_GAP_PX
        parts.append(f'<line class="tick" x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 5}"/>'
                     f'<text class="tick-label" x="{x + 2:.1f}" y="{y + 17}">{escape(label)}</text>')
    return "".join(parts)


def _rung_title(kind: str, rung: str) -> str:
    if kind == "count":
        return f"{rung} interaction" if rung == "1" else f"{rung} interactions"
    return rung


def _state_words(block: TimelineBlock) -> str:
    words = {"summarized": "summarized by the model", "reused": "reused an earlier summary",
             "passed": "inputs passed through", "empty": "silent: nothing in it",
             "pending": "pending: not written yet", "held": "held: its summary call failed or waits"}[block.state]
    return words + (f", version {block.version}" if block.version else "")


def _size_words(block: TimelineBlock) -> str:
    if block.version is None:
        return ""
    parts = [f"~{block.tokens} tokens"] if block.tokens is not None else []
    if block.messages:
        parts.append(f"{block.messages} messages")
    if block.sources:
        parts.append(f"{len(block.sources)} sources")
    return ", ".join(parts)


def _details(block: TimelineBlock) -> dict:
    item = asdict(block)
    item["sources"] = list(block.sources)
    item["notes"] = list(block.notes)
    item["status"] = _state_words(block)
    item["size"] = _size_words(block)
    return item


def _script_json(value: object) -> str:
    """JSON that cannot end the <script> element it sits in, whatever the texts hold."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for raw, safe in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, safe)
    return text
