"""TermoMeter distances: the spec's worked examples, and fast == brute force."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.term_extraction.distance import (
    compositional_distance,
    nearest_brute_force,
    string_distance,
    term_distance,
)
from tasks.term_extraction.nearest import nearest_gold


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("base", "bases", 0.2), ("base", "basement", 0.5), ("base", "relational", 0.9)],
)
def test_string_distance_examples(a: str, b: str, expected: float) -> None:
    assert string_distance(a, b) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("data base", "data bases", 0.1),
        ("relational data base", "data base", 1 / 3),
        # (d_s(relational, web) 0.9 + d_s(data, site) 0.75 + 1) / 3
        ("relational data base", "web site", 2.65 / 3),
    ],
)
def test_compositional_distance_examples(a: str, b: str, expected: float) -> None:
    assert compositional_distance(a, b) == pytest.approx(expected, abs=1e-11)


def test_relational_data_base_web_site_is_about_0_883() -> None:
    assert compositional_distance("relational data base", "web site") == pytest.approx(
        0.883, abs=5e-4
    )


def test_term_distance_is_mean_and_order_free() -> None:
    assert term_distance("data base", "data bases") == pytest.approx(0.1)
    assert compositional_distance("base data", "data base") == 0.0
    assert term_distance("data base", "data base") == 0.0


def test_empty_strings() -> None:
    assert string_distance("", "") == 0.0
    assert compositional_distance("", "") == 0.0
    assert compositional_distance("", "a b") == 1.0


_ALPHABET = "abcde"


def _random_term(rng: random.Random, max_words: int) -> str:
    n = rng.choices(range(1, max_words + 1), weights=[5, 4, 3, 2, 1, 1, 1][:max_words])[
        0
    ]
    return " ".join(
        "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 5)))
        for _ in range(n)
    )


def _mutate(rng: random.Random, term: str) -> str:
    words = term.split()
    roll = rng.random()
    if roll < 0.25:
        rng.shuffle(words)
    elif roll < 0.5:
        words.append(rng.choice(_ALPHABET))
    elif roll < 0.75 and len(words) > 1:
        words.pop(rng.randrange(len(words)))
    else:
        i = rng.randrange(len(words))
        words[i] = words[i] + rng.choice(_ALPHABET)
    return " ".join(words)


@pytest.mark.parametrize("seed", range(6))
def test_fast_equals_brute_force_on_random_samples(seed: int) -> None:
    # A small alphabet gives many ties (first gold term must win) and words up to 7
    # per term exercise the scipy path for long terms.
    rng = random.Random(seed)
    gold = list(dict.fromkeys(_random_term(rng, 7) for _ in range(60)))
    outputs = [
        _mutate(rng, rng.choice(gold)) if rng.random() < 0.6 else _random_term(rng, 7)
        for _ in range(50)
    ]
    outputs = list(dict.fromkeys(outputs))
    index, distance = nearest_brute_force(outputs, gold)
    fast = nearest_gold(outputs, gold)
    assert fast.index.tolist() == index
    assert [float(fast.exact_distance(i)) for i in range(len(index))] == distance


def test_ties_go_to_the_first_gold_term() -> None:
    # "ab" is at d_t 0.5 from both "a" and "b".
    fast = nearest_gold(["ab"], ["b", "a"])
    assert fast.index.tolist() == [0]
    assert nearest_brute_force(["ab"], ["b", "a"])[0] == [0]


def test_no_gold_or_no_output() -> None:
    assert nearest_gold([], ["a"]).index.tolist() == []
    assert nearest_gold(["a"], []).index.tolist() == [-1]


def test_fast_equals_brute_force_across_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.term_extraction import nearest

    monkeypatch.setattr(nearest, "BLOCK_CELLS", 100)
    rng = random.Random(42)
    gold = list(dict.fromkeys(_random_term(rng, 4) for _ in range(40)))
    outputs = list(dict.fromkeys(_mutate(rng, rng.choice(gold)) for _ in range(40)))
    outputs += gold[:5]
    index, distance = nearest_brute_force(outputs, gold)
    fast = nearest.nearest_gold(outputs, gold)
    assert fast.index.tolist() == index
    assert [float(fast.exact_distance(i)) for i in range(len(index))] == distance


_words = st.text(alphabet="abcé-'", min_size=1, max_size=6)
_terms = st.lists(_words, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    gold=st.lists(_terms, min_size=1, max_size=12, unique=True),
    outputs=st.lists(_terms, min_size=1, max_size=12, unique=True),
)
def test_fast_equals_brute_force_property(gold: list[str], outputs: list[str]) -> None:
    index, distance = nearest_brute_force(outputs, gold)
    fast = nearest_gold(outputs, gold)
    assert fast.index.tolist() == index
    assert [float(fast.exact_distance(i)) for i in range(len(index))] == distance


def test_long_words_use_a_wide_table() -> None:
    # Words over 254 characters do not fit the uint8 word-distance table.
    a, b = "x" * 300, "x" * 299 + "y"
    outputs = [a + " z", "q " + b, "y" * 900]
    gold = [b, a + " zz", "x" * 600 + "y" * 300]
    index, distance = nearest_brute_force(outputs, gold)
    fast = nearest_gold(outputs, gold)
    assert fast.index.tolist() == index == [1, 0, 2]
    assert [float(fast.exact_distance(i)) for i in range(len(index))] == distance
