"""A fifth task type that lives outside ``tasks/`` (``toy_labels``): proof that a new
task type needs its own folder and one registry entry, and nothing in ``evalhub/``.

Registered only through ``EVALHUB_EXTRA_TASK_TYPES`` (see :mod:`tasks.registry`) by
the test that uses it. Files:

- input ``items`` (public): one item id per line;
- gold ``labels`` (hidden): ``id<TAB>label`` per line, one per item;
- run: ``id<TAB>label`` per line, each item at most once, ids among the items.

Metrics: accuracy = correct / items (primary), coverage = labelled / items.
"""
