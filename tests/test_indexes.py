"""Both engine indexes against a Python dict model, with hypothesis."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from islands import _core

KEY = st.integers(min_value=0, max_value=2**64 - 2)  # 2**64-1 is the hash index's empty marker
SMALL_KEY = st.integers(min_value=0, max_value=3000)
VALUE = st.integers(min_value=0, max_value=2**64 - 1)
OPS = st.lists(
    st.tuples(st.sampled_from(["insert", "lookup", "update", "erase"]), st.one_of(SMALL_KEY, KEY), VALUE), max_size=400
)


def make(kind: str):
    return _core.HashIndex(4) if kind == "hash" else _core.BTreeIndex()


@pytest.mark.parametrize("kind", ["hash", "btree"])
@settings(max_examples=150, deadline=None)
@given(ops=OPS)
def test_operations_match_a_dict(kind, ops):
    index, model = make(kind), {}
    for op, key, value in ops:
        if op == "insert":
            assert index.insert(key, value) == (key not in model)
            model.setdefault(key, value)
        elif op == "update":
            assert index.update(key, value) == (key in model)
            if key in model:
                model[key] = value
        elif op == "erase":
            assert index.erase(key) == (key in model)
            model.pop(key, None)
        else:
            assert index.lookup(key) == model.get(key)
    assert len(index) == len(model)
    for key, value in model.items():
        assert index.lookup(key) == value


@pytest.mark.parametrize("kind", ["hash", "btree"])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(200, 6000), spread=st.sampled_from([1, 3, 2**40]))
def test_erase_keeps_the_other_keys_reachable(kind, seed, n, spread):
    # Dense keys make long probe runs in the hash index: each erase shifts later keys back.
    rng = random.Random(seed)
    keys = rng.sample(range(n * spread), n)
    index = make(kind)
    for i, key in enumerate(keys):
        assert index.insert(key, i)
    gone = set(rng.sample(keys, n // 2))
    for key in gone:
        assert index.erase(key)
        assert not index.erase(key)
    assert len(index) == n - len(gone)
    for i, key in enumerate(keys):
        assert index.lookup(key) == (None if key in gone else i)
    for key in gone:  # and they can come back
        assert index.insert(key, 7)
        assert index.lookup(key) == 7


@pytest.mark.parametrize("kind", ["hash", "btree"])
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(5000, 30000),
    spread=st.sampled_from([2, 10, 2**40]),
    order=st.sampled_from(["random", "ascending", "descending"]),
)
def test_many_keys_split_and_grow(kind, seed, n, spread, order):
    rng = random.Random(seed)
    keys = rng.sample(range(n * spread), n)
    if order != "random":
        keys.sort(reverse=order == "descending")
    index, model = make(kind), {}
    for i, key in enumerate(keys):
        assert index.insert(key, i)
        model[key] = i
    assert len(index) == n
    if kind == "btree":
        assert index.height >= 3  # thousands of keys in 32-key nodes: split many times
    for key, value in model.items():
        assert index.lookup(key) == value
    for _ in range(1000):
        probe = rng.randrange(n * spread + 100)
        assert index.lookup(probe) == model.get(probe)


@settings(max_examples=40, deadline=None)
@given(
    keys=st.lists(st.integers(0, 100_000), max_size=3000, unique=True),
    low=st.integers(0, 100_000),
    width=st.integers(0, 50_000),
)
def test_btree_scan_is_the_sorted_range(keys, low, width):
    tree = _core.BTreeIndex()
    for key in keys:
        tree.insert(key, key * 3)
    high = low + width
    expected = [(k, k * 3) for k in sorted(keys) if low <= k <= high]
    assert tree.scan(low, high) == expected
