"""The timeline page's inline CSS, script and legend (kept apart from the markup code).

The script reads the blocks' details from the page's JSON element and only ever writes
text with textContent, so no summary text can become markup. It fetches nothing.
"""

from __future__ import annotations

LEGEND = (
    '<span class="sw summarized"></span>summarized '
    '<span class="sw reused"></span>reused '
    '<span class="sw passed"></span>passed through '
    '<span class="sw empty"></span>silent (empty) '
    '<span class="sw pending"></span>pending (not written yet) '
    '<span class="sw held"></span>held (call failed or deferred) '
    '<span class="sw stale"></span>newer messages waiting'
)

STYLE = """
:root { --sel: #111; --src: #e8710a; --reader: #7b3fbf; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330;
       background: #fff; }
header { padding: 14px 20px 4px; border-bottom: 1px solid #e3e6ea; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 14px 0 2px; }
.meta, .caption, .hint { color: #566070; margin: 2px 0; font-size: 13px; }
.legend { margin: 6px 0; font-size: 12px; color: #384050; }
.sw { display: inline-block; width: 14px; height: 12px; margin: 0 4px 0 10px; vertical-align: -1px;
      border-radius: 2px; border: 1px solid #fff; }
.sw.summarized { background: #3b6fc4; } .sw.reused { background: #7aa6e0; } .sw.passed { background: #5fae8b; }
.sw.empty { background: #e3e6ea; }
.sw.pending { background: repeating-linear-gradient(45deg, #fff 0 3px, #c5cad3 3px 5px); border: 1px dashed #8a93a0; }
.sw.held { background: #f0a13a; border: 2px dashed #b8461b; } .sw.stale { background: #3b6fc4; border: 2px solid #d93025; }
.page { display: flex; align-items: flex-start; }
main { flex: 1; min-width: 0; padding: 0 20px 24px; }
.rows { display: flex; }
.labels { flex: none; width: 124px; }
.rung-label { display: flex; align-items: center; font-size: 12px; color: #384050; font-weight: 600;
               white-space: nowrap; }
.scroll { flex: 1; min-width: 0; overflow-x: auto; padding-bottom: 6px; }
svg.chart { display: block; }
svg text { font-size: 11px; pointer-events: none; fill: #fff; }
.lane { fill: #f6f7f9; }
.block { cursor: pointer; outline: none; }
.block rect { stroke: #fff; stroke-width: 1; }
.block.summarized rect { fill: #3b6fc4; } .block.reused rect { fill: #7aa6e0; }
.block.passed rect { fill: #5fae8b; }
.block.empty rect { fill: #e3e6ea; } .block.empty text { fill: #778; }
.block.pending rect { stroke: #8a93a0; stroke-dasharray: 4 3; } .block.pending text { fill: #445; }
.block.held rect { fill: #f0a13a; stroke: #b8461b; stroke-width: 2; stroke-dasharray: 5 2; }
.block.held text { fill: #3a1a00; }
.block.stale rect { stroke: #d93025; stroke-width: 2; }
.hatch-bg { fill: #fff; } .hatch-line { stroke: #c5cad3; stroke-width: 2; }
.block:hover rect, .block:focus rect { stroke: #555; stroke-width: 2; }
.block.sel rect { stroke: var(--sel); stroke-width: 3; }
.block.src rect { stroke: var(--src); stroke-width: 3; }
.block.reader rect { stroke: var(--reader); stroke-width: 3; }
body.focus .block:not(.sel):not(.src):not(.reader) { opacity: 0.3; }
.links line { stroke-width: 1.5; pointer-events: none; }
.links line.src { stroke: var(--src); } .links line.reader { stroke: var(--reader); stroke-dasharray: 3 2; }
.axis, .tick { stroke: #99a3b0; } svg text.tick-label { fill: #566070; }
aside#panel { flex: none; width: 360px; position: sticky; top: 0; max-height: 100vh; overflow-y: auto;
              border-left: 1px solid #e3e6ea; padding: 12px 16px; background: #fbfbfc; }
.placeholder, .empty-note { color: #778; }
#panel h3 { margin: 4px 0; font-size: 16px; } #panel .sub { color: #566070; margin: 0 0 8px; font-size: 12px; }
#panel dl { display: grid; grid-template-columns: 80px 1fr; gap: 2px 8px; margin: 0 0 10px; font-size: 13px; }
#panel dt { color: #566070; } #panel dd { margin: 0; }
#panel pre { white-space: pre-wrap; word-wrap: break-word; font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace;
             background: #fff; border: 1px solid #e3e6ea; padding: 8px; max-height: 45vh; overflow-y: auto; }
#panel h4 { margin: 10px 0 4px; font-size: 13px; }
#panel button { font: 12px system-ui, sans-serif; margin: 0 4px 4px 0; padding: 2px 6px; border-radius: 3px;
                border: 1px solid #ccd; background: #fff; cursor: pointer; }
#panel button.src { border-color: var(--src); } #panel button.reader { border-color: var(--reader); }
"""

SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("timeline-data").textContent);
  var panel = document.getElementById("panel");
  var placeholder = panel.firstElementChild;

  function blockEl(ref) { return document.getElementById("b:" + ref); }
  function setHash(hash) {
    try { history.replaceState(null, "", hash || (location.pathname + location.search)); } catch (e) { /* file: quirks */ }
  }
  function clear() {
    document.querySelectorAll(".block.sel, .block.src, .block.reader").forEach(function (el) {
      el.classList.remove("sel", "src", "reader");
    });
    document.querySelectorAll("g.links").forEach(function (g) { g.replaceChildren(); });
    document.body.classList.remove("focus");
    panel.replaceChildren(placeholder);
  }
  function edge(el, top) {
    var r = el.querySelector("rect");
    var x = Number(r.getAttribute("x")) + Number(r.getAttribute("width")) / 2;
    var y = Number(r.getAttribute("y")) + (top ? 0 : Number(r.getAttribute("height")));
    return [x, y];
  }
  function link(upper, lower, kind) {
    var svg = upper.ownerSVGElement;
    if (!svg || svg !== lower.ownerSVGElement) { return; }
    var line = document.createElementNS(svg.namespaceURI, "line");
    var a = edge(upper, false), b = edge(lower, true);
    line.setAttribute("x1", a[0]); line.setAttribute("y1", a[1]);
    line.setAttribute("x2", b[0]); line.setAttribute("y2", b[1]);
    line.setAttribute("class", kind);
    svg.querySelector("g.links").appendChild(line);
  }
  function add(parent, tag, text, cls) {
    var el = document.createElement(tag);
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    if (cls) { el.className = cls; }
    parent.appendChild(el);
    return el;
  }
  function chips(title, refs, kind) {
    if (!refs || !refs.length) { return; }
    add(panel, "h4", title + " (" + refs.length + ")");
    var box = add(panel, "div");
    refs.forEach(function (ref) {
      var item = data[ref];
      var b = add(box, "button", item ? item.label : ref + " (outside the range drawn)", kind);
      b.disabled = !item;
      b.addEventListener("click", function () { select(ref, true); });
    });
  }
  function show(item) {
    panel.replaceChildren();
    add(panel, "h3", item.label);
    add(panel, "p", item.ladder + " ladder, rung " + item.rung, "sub");
    var dl = add(panel, "dl");
    [["window", item.window], ["state", item.status], ["size", item.size]].forEach(function (row) {
      if (row[1]) { add(dl, "dt", row[0]); add(dl, "dd", row[1]); }
    });
    item.notes.forEach(function (note) { add(dl, "dt", "note"); add(dl, "dd", note); });
    add(panel, "pre", item.text || "(no summary text)", "text");
    chips("Written from", item.sources, "src");
    chips("Read by", item.readers, "reader");
  }
  function select(ref, scroll) {
    var item = data[ref], el = blockEl(ref);
    if (!item || !el) { return; }
    clear();
    document.body.classList.add("focus");
    el.classList.add("sel");
    item.sources.forEach(function (s) {
      var t = blockEl(s);
      if (t) { t.classList.add("src"); link(el, t, "src"); }
    });
    (item.readers || []).forEach(function (r) {
      var t = blockEl(r);
      if (t) { t.classList.add("reader"); link(t, el, "reader"); }
    });
    show(item);
    setHash("#b=" + encodeURIComponent(ref));
    if (scroll && el.scrollIntoView) { el.scrollIntoView({block: "nearest", inline: "center"}); }
  }
  document.querySelectorAll(".block").forEach(function (el) {
    el.addEventListener("click", function () { select(el.getAttribute("data-ref"), false); });
    el.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(el.getAttribute("data-ref"), false); }
    });
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") { clear(); setHash(""); } });
  var wanted = /^#b=(.+)$/.exec(location.hash);
  if (wanted) { select(decodeURIComponent(wanted[1]), true); }
})();
"""
