from tests.annotations.fixtures import (  # noqa: F401  (fixtures)
    annotator,
    mt_demo,
    mt_runs,
    mt_task,
    mt_test_set,
    submit_scored,
    without_plots,
)
