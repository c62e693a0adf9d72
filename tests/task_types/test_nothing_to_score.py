"""``TaskType.nothing_to_score`` (issue 43.4): a parsed run that keeps nothing to score
says why; one that keeps something says nothing (the platform then scores it)."""

from __future__ import annotations

from tasks import registry


def test_a_term_list_of_blank_lines_has_nothing_to_score() -> None:
    tt = registry.get("term_extraction")
    settings = tt.parse_settings({})
    blank = tt.parse_run(b"\n\r\n", "run.txt", None, settings)
    assert tt.nothing_to_score(blank) == "it lists no term (its lines are blank)"
    assert tt.nothing_to_score(tt.parse_run(b"a\n", "run.txt", None, settings)) is None


def test_pairs_all_removed_leave_nothing_to_score(bucc_demo) -> None:  # noqa: ANN001
    tt = registry.get("bilingual_term_alignment")
    settings = tt.parse_settings(dict(bucc_demo.settings))
    inputs = tt.parse_inputs(dict(bucc_demo.test_sets[0].inputs), settings)
    run = tt.parse_run(b"nope\tnada\nnope\tnada\n", "run.tsv", inputs, settings)
    reason = tt.nothing_to_score(run)
    assert reason is not None and reason.startswith("every pair was removed: ")
    assert "1 repeated pair(s) removed" in reason and "outside the source" in reason
    demo = next(iter(bucc_demo.runs[0][2].values()))
    assert tt.nothing_to_score(tt.parse_run(demo, "run.tsv", inputs, settings)) is None
