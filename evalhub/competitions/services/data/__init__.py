"""A task's data: test sets, input and gold files, bundles, tracks and the demo."""
