"""The repartitioning actions between two schemes (islands.atrapos.actions): applied in order
to the old partitions they give exactly the new ones, and their counts on known cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from islands.atrapos import Hardware, RepartitionAction, Scheme, TableLayout, repartition_actions


def apply(old: Scheme, actions: list[RepartitionAction]) -> dict[str, list[tuple[int, int, int]]]:
    """The partitions (lo, hi, core) of every table after running ``actions`` on ``old``."""
    parts = {t: [] for t in old.names}
    for p in old.partitions():
        parts[p.table].append((p.lo, p.hi, p.core))
    for a in actions:
        ps = parts[a.table]
        if a.kind == "split":
            i = next(i for i, (lo, hi, _) in enumerate(ps) if lo < a.key < hi)
            lo, hi, core = ps[i]
            ps[i : i + 1] = [(lo, a.key, core), (a.key, hi, core)]
        elif a.kind == "move":
            i = ps.index((a.lo, a.hi, a.source))
            ps[i] = (a.lo, a.hi, a.target)
        else:
            i = next(i for i, (_, hi, _) in enumerate(ps) if hi == a.key)
            (lo, _, left), (_, hi, right) = ps[i], ps[i + 1]
            assert left == right, f"merge at {a.key} across cores {left} and {right}"
            ps[i : i + 2] = [(lo, hi, left)]
    return parts


def partitions_of(scheme: Scheme) -> dict[str, list[tuple[int, int, int]]]:
    out = {t: [] for t in scheme.names}
    for p in scheme.partitions():
        out[p.table].append((p.lo, p.hi, p.core))
    return out


def test_a_rearrangement_is_a_split_a_move_and_a_merge():
    # [0, 50) on core 0 and [50, 100) on core 1 become [0, 40) and [40, 100): one split at 40,
    # [40, 50) moves to core 1, and the old boundary at 50 merges.
    old = Scheme({"A": TableLayout(np.arange(0, 101, 10), np.array([0] * 5 + [1] * 5))}, 2)
    new = old.with_owners(np.array([0] * 4 + [1] * 6))
    actions = repartition_actions(old, new)
    assert [str(a) for a in actions] == ["split A at 40", "move A [40, 50) core 0 -> 1", "merge A at 50"]
    assert apply(old, actions) == partitions_of(new)
    assert repartition_actions(old, old) == []


def test_removing_a_core_moves_its_partitions():
    hw = Hardware.from_sockets([3])
    old = Scheme.naive({"A": (0, 300), "B": (0, 300)}, hw)
    owners = old.owners()
    new = old.with_owners(np.where(owners == 2, 1, owners))  # core 2's partitions go to core 1
    actions = repartition_actions(old, new)
    assert [a.kind for a in actions] == ["move", "move", "merge", "merge"]
    assert apply(old, actions) == partitions_of(new)


def test_schemes_of_other_tables_or_cuts_are_refused():
    a = Scheme({"A": TableLayout(np.arange(3), np.array([0, 0]))}, 1)
    with pytest.raises(ValueError, match="tables"):
        repartition_actions(a, Scheme({"B": TableLayout(np.arange(3), np.array([0, 0]))}, 1))
    with pytest.raises(ValueError, match="table A is cut into other sub-partitions"):
        repartition_actions(a, Scheme({"A": TableLayout(np.arange(3) * 2, np.array([0, 0]))}, 1))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_actions_turn_any_scheme_into_any_other(data):
    cores = data.draw(st.integers(1, 4))
    tables = {}
    for t in range(data.draw(st.integers(1, 3))):
        n = data.draw(st.integers(1, 15))
        owners = data.draw(st.lists(st.integers(0, cores - 1), min_size=n, max_size=n))
        tables[f"T{t}"] = TableLayout(np.arange(n + 1) * 7, np.array(owners))
    old = Scheme(tables, cores)
    new_owners = data.draw(st.lists(st.integers(0, cores - 1), min_size=old.n_sub, max_size=old.n_sub))
    new = old.with_owners(np.array(new_owners))
    actions = repartition_actions(old, new)
    assert apply(old, actions) == partitions_of(new)
    kinds = [a.kind for a in actions]
    assert kinds == sorted(kinds, key=["split", "move", "merge"].index)
