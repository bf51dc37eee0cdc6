"""The offline pass ("sleep"): merge near duplicates, forget the weak, keep the best N.

Each tick the stage first applies the FactUse queue (mark_used: strength + 1 capped,
last_used = time of use). Then, for every scope whose facts changed since its last pass and
that is idle (no message for facts.sleep_idle) or whose new facts' summed importance reached
facts.sleep_importance, it runs one pass:

1. snapshot: the scope's current facts and its fact revision (the fingerprint), read without
   the write lock;
2. cluster against a centroid: facts are visited best score first; each unclustered fact
   seeds a cluster, and a fact similar to the seed joins only if it is also similar to the
   cluster's strength-weighted centroid (>= facts.merge_threshold), re-checked once the
   cluster is complete, so A~B and B~C never pull in a C unlike A;
3. the model judges each cluster of two or more (`judge_cluster`); it refuses conflicts
   ("uses vim" / "uses emacs"). A refusal is remembered (stores.cluster_verdicts) and the
   same members, texts and model are not asked again on later passes. A merge keeps the member whose text the model chose (else a
   new fact with the model's text): it gets every source, the strength-weighted centroid, the
   highest importance and the summed strength (capped); the others are tombstoned
   (end_reason "merged", superseded_by the kept fact);
4. unpinned facts scoring below facts.score_floor are dropped, then all but the best
   facts.keep_top (pinned facts always stay) - tombstoned with end_reason "dropped";
5. reflections over the facts that stay are written, rewritten or tombstoned (facts/reflect.py),
   and the topic tables of the surviving facts restructured (consolidator/facts/tables.py); a
   reflection lives, and counts, in the table most of its sources are in;
6. commit only if the revision is unchanged; otherwise nothing is written, the pass is logged
   as aborted and runs again on a later tick.
Tombstones are rows, restorable with `consolidator restore` for facts.restore_grace.

Candidate pairs come from a blocked Gram matrix (block x n at a time), so memory stays at
block x n floats; at n = 10,000 and d = 384 the pass is well under a second of numpy.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable, Sequence

import numpy as np
import structlog

from consolidator.core.app import App
from consolidator.model.embeddings import Embedder, HashingEmbedder, fill_missing_rows
from consolidator.model.base import Deferred, Model, ModelError
from consolidator.model.schemas import ClusterRequest, KnownFact
from consolidator.facts import reflect
from consolidator.facts.scoring import scores
from consolidator.facts.tables import TablePlan, TablePlanner, survivors, write_plan
from stores.fact_tables import split_names, tables_of
from stores.cluster_verdicts import cluster_key, refused_keys, remember_refusals
from stores.engine import reading, transaction
from stores.facts import facts_by_id, revision, unslept_states, apply_uses, close_fact, current_facts, new_fact_id, norm_hash, scopes_with_uses, state_of, to_bytes, touch
from stores.schema.memory import Fact
from stores.messages import newest_at
from stores.reflections import interactions_of
from stores.view_versions import bump

log = structlog.get_logger()

FAILURE_PAUSE = timedelta(minutes=10)


def centroid_clusters(vectors: np.ndarray, weights: np.ndarray, order: np.ndarray, threshold: float,
                      block: int = 2048) -> list[list[int]]:
    """Clusters (lists of row indices, seed first) of unit rows, built against a centroid.

    Pure: the same inputs give the same clusters. Singletons are included.
    """
    n = vectors.shape[0]
    neighbours: list[list[tuple[float, int]]] = [[] for _ in range(n)]
    for start in range(0, n, block):
        sims = vectors[start:start + block] @ vectors.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist()):
            if start + r != c:
                neighbours[start + r].append((float(sims[r, c]), c))
    assigned = np.zeros(n, dtype=bool)
    clusters: list[list[int]] = []
    for seed in order.tolist():
        if assigned[seed]:
            continue
        assigned[seed] = True
        members = [seed]
        total = vectors[seed].astype(np.float64) * weights[seed]
        for _, j in sorted(neighbours[seed], key=lambda sj: (-sj[0], sj[1])):
            if assigned[j]:
                continue
            norm = np.linalg.norm(total)
            if norm > 0 and float(vectors[j] @ (total / norm)) >= threshold:
                members.append(j)
                assigned[j] = True
                total = total + vectors[j].astype(np.float64) * weights[j]
        if len(members) > 2:  # re-check every member against the final centroid
            centre = total / max(np.linalg.norm(total), 1e-12)
            keep = [members[0]] + [j for j in members[1:] if float(vectors[j] @ centre) >= threshold]
            for j in set(members) - set(keep):
                assigned[j] = False
            members = keep
        clusters.append(members)
    for i in np.flatnonzero(~assigned).tolist():  # released by a re-check after their turn
        clusters.append([i])
    return clusters


@dataclass
class Merge:
    members: list[str]
    kept: str | None  # None: a new fact carries the model's text
    text: str
    embedding: np.ndarray
    importance: int
    strength: float
    new_id: str | None = None


@dataclass
class SleepReport:
    scope: str
    facts: int = 0
    clusters: int = 0
    merged: int = 0
    refused: int = 0
    remembered: int = 0  # clusters refused on an earlier pass, not asked again
    dropped: int = 0
    aborted: bool = False
    changed: bool = False
    merges: list[Merge] = field(default_factory=list)
    drops: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # keys of the clusters refused in this pass
    tables: TablePlan = field(default_factory=TablePlan)  # the topic tables' restructure (facts/tables.py)
    reflections: reflect.ReflectionPlan = field(default_factory=reflect.ReflectionPlan)


class SleepStage:
    name = "sleep"

    def __init__(self, app: App, model: Model, embedder: Embedder | None = None) -> None:
        self.app = app
        self.model = model
        self.embedder = embedder or HashingEmbedder()
        self.settings = app.settings.facts
        self.tables = TablePlanner(self.embedder, model, self.settings)
        self._paused: dict[str, datetime] = {}
        self.on_progress: Callable[[], None] = lambda: None  # ports.Stage: beat per cluster judged

    # --- the stage ---------------------------------------------------------------------------

    def run(self, now: datetime, stop: threading.Event | None = None, scopes: Sequence[str] | None = None) -> int:
        """Apply fact uses and run the due passes of these scopes (None: every scope)."""
        done = self.apply_uses(now, scopes)
        for scope in self.due_scopes(now, scopes):
            if stop is not None and stop.is_set():
                break
            if self._paused.get(scope, now) > now:
                continue
            try:
                report = self.run_scope(scope, now)
            except Deferred as exc:  # the daily budget, or a batch pending: skip the scope until then
                self._paused[scope] = exc.until(now)
                log.info("sleep.deferred", scope=scope, until=self._paused[scope].isoformat(), reason=exc.reason)
                continue
            except Exception as exc:  # a model or store failure: try this scope again later
                self._paused[scope] = now + FAILURE_PAUSE
                log.warning("sleep.failed", scope=scope, error=f"{type(exc).__name__}: {exc}"[:500])
                continue
            self._paused.pop(scope, None)
            done += report.changed
        return done

    def apply_uses(self, now: datetime, scopes: Sequence[str] | None = None) -> int:
        with reading(self.app.engine) as session:
            todo = scopes_with_uses(session)
        if scopes is not None:
            todo = [scope for scope in todo if scope in set(scopes)]
        total = 0
        for scope in todo:
            with transaction(self.app.engine) as session:
                applied, ignored = apply_uses(session, scope, self.settings.strength_cap, now)
                if applied:
                    bump(session, scope, "facts")
            total += applied
            log.info("facts.uses_applied", scope=scope, applied=applied, ignored=ignored)
        return total

    def due_scopes(self, now: datetime, scopes: Sequence[str] | None = None) -> list[str]:
        with reading(self.app.engine) as session:
            states = unslept_states(session, scopes)
            # one index probe per changed scope, never a scan of the whole log
            newest = {s.scope: newest_at(session, s.scope) for s in states}
        due = []
        for state in sorted(states, key=lambda s: s.scope):
            last = newest.get(state.scope)
            idle = last is None or now - last >= self.settings.sleep_idle
            if idle or state.importance_since_sleep >= self.settings.sleep_importance:
                due.append(state.scope)
        return due

    # --- one pass ----------------------------------------------------------------------------

    def run_scope(self, scope: str, now: datetime) -> SleepReport:
        report = SleepReport(scope)
        with reading(self.app.engine) as session:
            fingerprint = revision(session, scope)
            facts = current_facts(session, scope)
            refused_before = refused_keys(session, scope)
            registry = [(t.name, t.description) for t in tables_of(session, scope)]
            retired = split_names(session, scope)
        reflections = [f for f in facts if f.is_reflection]
        facts = [f for f in facts if not f.is_reflection]
        report.facts = len(facts)
        gone: set[str] = set()
        if len(facts) > 1:
            self._merges(scope, facts, report, now, refused_before)
            for merge in report.merges:
                gone.update(m for m in merge.members if m != merge.kept)
        report.drops = self._drops(facts, gone, report.merges, now)
        report.dropped = len(report.drops)
        # 5. reflections, then the topic tables of what survives, each reflection counted in its
        #    sources' table: place, move, merge, split (model calls, before the lock)
        staying = {f.id: f for f in facts if f.id not in gone and f.id not in set(report.drops)}
        if self.settings.reflect and reflect.can_reflect(self.model):
            report.reflections = self._reflections(scope, staying, reflections, refused_before)
        elif reflections:  # turned off: none is left to outlive its evidence
            report.reflections.retire = [r.id for r in reflections]
        report.tables = self.tables.plan(scope, survivors(facts, report.merges, gone | set(report.drops)), registry,
                                          retired, reflect.riders(reflections, report.reflections))
        with transaction(self.app.engine) as session:
            state = state_of(session, scope, lock=True)
            if state.revision != fingerprint:
                report.aborted = True
                log.info("sleep.aborted", scope=scope, seen=fingerprint, now=state.revision)
                return report
            remember_refusals(session, scope, report.refusals + report.reflections.refusals, now)
            written = report.reflections.writes or report.reflections.retire
            report.changed = bool(report.merges or report.drops or written or report.tables.changed)
            if report.changed:
                self._write(session, scope, report, now)
                write_plan(session, scope, report.tables, now)
                named = {r.id for r in reflections} | {w.replaces for w in report.reflections.writes if w.replaces}
                rows = facts_by_id(session, scope, named)
                written_rows = reflect.write(session, scope, report.reflections, rows, staying, now, new_fact_id)
                table_of = {f.id: report.tables.assigned.get(f.id, f.fact_table) for f in staying.values()}
                reflect.home([*(r for r in rows.values() if r.valid_to is None), *written_rows], table_of, now)
                state = touch(session, scope)
                bump(session, scope, "facts")
            state.slept_revision = state.revision
            state.importance_since_sleep = 0
            state.last_sleep_at = now
        log.info("sleep.pass", scope=scope, facts=report.facts, clusters=report.clusters, merged=report.merged,
                 refused=report.refused, remembered=report.remembered, dropped=report.dropped,
                 tables=len(report.tables.tables), splits=report.tables.splits, table_moves=len(report.tables.moves),
                 reflections_written=len(report.reflections.writes), reflections_kept=report.reflections.kept,
                 reflections_retired=len(report.reflections.retire))
        return report

    def _reflections(self, scope: str, staying: dict[str, Fact], reflections: list[Fact],
                     refused_before: set[str]) -> reflect.ReflectionPlan:
        """What the pass writes, rewrites and tombstones of the scope's reflections (facts/reflect.py)."""
        cfg = self.settings
        facts = list(staying.values())
        with reading(self.app.engine) as session:
            where = interactions_of(session, scope, {s for f in facts for s in f.sources})
        sessions = {f.id: frozenset(f"i{where[s]}" for s in f.sources if s in where)
                    or frozenset({f"d{f.valid_from.date()}"}) for f in facts}
        bodies = np.zeros((len(facts), self.embedder.dim), dtype=np.float32)
        if facts:
            bodies = self.embedder.embed([reflect.body_of(f.text, reflect.subject_of(f.text) or "") for f in facts])
        groups = reflect.qualifying_groups(facts, bodies, sessions, cfg.reflect_min_facts, cfg.reflect_threshold,
                                           centroid_clusters)
        try:
            return reflect.plan(scope, groups, reflections, staying, self.model, self.model.name,
                                cfg.reflect_max_facts, refused_before)
        except Deferred:
            raise
        except ModelError as exc:  # the merges and drops still go in; no reflection outlives a source meanwhile
            log.warning("sleep.reflect_failed", scope=scope, error=f"{type(exc).__name__}: {exc}"[:500])
            return reflect.ReflectionPlan(retire=[r.id for r in reflections
                                                  if not set(r.rests_on or []) <= set(staying)])

    def _merges(self, scope: str, facts: list[Fact], report: SleepReport, now: datetime,
                refused_before: set[str]) -> None:
        cfg = self.settings
        vectors = np.stack([_unit(f.vector(), self.embedder.dim) for f in facts])
        fill_missing_rows(vectors, [f.text for f in facts], self.embedder)  # rows of another embedder
        weights = np.array([f.strength for f in facts], dtype=np.float64)
        ages = np.array([(now - f.last_used).total_seconds() for f in facts])
        rank = scores(np.array([f.importance for f in facts], dtype=np.float64), weights, ages, cfg.tau,
                      np.array([f.pinned for f in facts]))
        order = np.lexsort((np.arange(len(facts)), -rank))
        for members in centroid_clusters(vectors, weights, order, cfg.merge_threshold):
            if len(members) < 2:
                continue
            report.clusters += 1
            self.on_progress()
            centre = (vectors[members] * weights[members, None]).sum(axis=0)
            centre /= max(float(np.linalg.norm(centre)), 1e-12)
            group = [facts[i] for i in members]
            key = cluster_key(self.model.name, [(f.id, f.text) for f in group])
            if key in refused_before:
                report.remembered += 1
                continue
            request = ClusterRequest(scope=scope, ref=f"sleep:{group[0].id}", facts=[
                KnownFact(id=f.id, text=f.text, similarity=round(float(vectors[i] @ centre), 4))
                for i, f in zip(members, group)
            ])
            reply = self.model.judge_cluster(request)
            if not reply.merge:
                report.refused += 1
                report.refusals.append(key)
                log.info("sleep.merge_refused", scope=scope, facts=[f.id for f in group], reason=reply.reason[:200])
                continue
            text = " ".join((reply.text or group[0].text).split())
            same = [f for f in group if norm_hash(f.text) == norm_hash(text)]
            kept = max(same, key=lambda f: (f.pinned, f.strength, f.importance)) if same else None
            report.merges.append(Merge(
                members=[f.id for f in group], kept=kept.id if kept else None, text=text, embedding=centre,
                importance=max(f.importance for f in group),
                strength=min(cfg.strength_cap, float(sum(f.strength for f in group))),
                new_id=None if kept else new_fact_id(),
            ))
            report.merged += len(group) - (1 if kept else 0)

    def _drops(self, facts: list[Fact], gone: set[str], merges: list[Merge], now: datetime) -> list[str]:
        """Ids to drop: unpinned facts below the floor, then all but the best keep_top.

        A kept fact is scored as merged; a fact newly created by a merge is kept this pass.
        """
        cfg = self.settings
        by_id = {f.id: f for f in facts}
        merged = {m.kept: m for m in merges if m.kept}
        alive = [f for f in facts if f.id not in gone]
        if not alive:
            return []
        importance, strength, ages, pinned = [], [], [], []
        for f in alive:
            group = [by_id[i] for i in merged[f.id].members] if f.id in merged else [f]
            importance.append(max(g.importance for g in group))
            strength.append(merged[f.id].strength if f.id in merged else f.strength)
            ages.append((now - max(g.last_used for g in group)).total_seconds())
            pinned.append(any(g.pinned for g in group))
        pins = np.array(pinned, dtype=bool)
        rank = scores(np.array(importance, dtype=np.float64), np.array(strength), np.array(ages), cfg.tau, pins)
        drop = {alive[i].id for i in range(len(alive)) if not pins[i] and rank[i] < cfg.score_floor}
        order = np.lexsort((np.arange(len(alive)), -rank)).tolist()
        room = max(0, cfg.keep_top - int(pins.sum()) - sum(1 for m in merges if m.kept is None))
        unpinned = [i for i in order if not pins[i] and alive[i].id not in drop]
        drop.update(alive[i].id for i in unpinned[room:])
        return sorted(drop)

    def _write(self, session, scope: str, report: SleepReport, now: datetime) -> None:
        cap = self.settings.strength_cap
        ids = {fid for m in report.merges for fid in m.members} | set(report.drops)
        rows = facts_by_id(session, scope, ids)
        for merge in report.merges:
            group = [rows[i] for i in merge.members]
            kept = rows[merge.kept] if merge.kept else _merged_row(scope, merge, group, now)
            if merge.kept is None:
                session.add(kept)
            kept.sources = list(dict.fromkeys(s for f in [kept, *group] for s in f.sources))
            kept.source_roles = list(dict.fromkeys(r for f in [kept, *group] for r in f.source_roles))
            kept.embedding = to_bytes(merge.embedding)
            kept.importance = merge.importance
            kept.strength = min(cap, merge.strength)
            kept.last_used = max(f.last_used for f in group)
            kept.pinned = any(f.pinned for f in group)
            kept.updated_at = now
            for f in group:
                if f.id != kept.id:
                    close_fact(f, now, "merged", now, superseded_by=kept.id, tombstone=True)
        for fid in report.drops:
            close_fact(rows[fid], now, "dropped", now, tombstone=True)



def _unit(vec: np.ndarray, dim: int) -> np.ndarray:
    if vec.shape[0] != dim:
        return np.zeros(dim, dtype=np.float32)
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec



def _merged_row(scope: str, merge: Merge, group: list[Fact], now: datetime) -> Fact:
    return Fact(
        id=merge.new_id, scope=scope, text=merge.text, norm_hash=norm_hash(merge.text),
        embedding=to_bytes(merge.embedding), importance=merge.importance, strength=merge.strength,
        last_used=max(f.last_used for f in group), created_at=now, updated_at=now,
        valid_from=min(f.valid_from for f in group), sources=[], source_roles=[],
        topic=group[0].topic, pinned=any(f.pinned for f in group), fact_table=group[0].fact_table,
    )
