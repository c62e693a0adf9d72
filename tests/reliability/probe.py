"""A test-only task type: BUCC scoring whose behaviour is chosen by the run's file name,
so fault tests can slow a scorer down, make it raise, hang or exhaust memory. It is
registered only by the test fixtures and by ``tests.reliability.worker_main``; the
production registry never names it.

File names: ``ok.tsv``, ``slow-<seconds>.tsv``, ``raise.tsv``, ``hang.tsv``,
``memory.tsv``, ``crash.tsv`` (the scoring process SIGKILLs itself, as the kernel's
OOM killer would).
"""

from __future__ import annotations

import os
import signal
import time

from tasks.bilingual_term_alignment.task import BilingualTermAlignment

SLUG = "reliability_probe"
PATH = "tests.reliability.probe:ProbeTask"
#: A quoted "gold" string the raising scorer puts in its exception text.
SECRET = "GOLD-SECRET-dont-leak"


class ProbeTask(BilingualTermAlignment):
    slug = SLUG
    name = "Reliability probe"

    def parse_phase_run(self, data, filename, inputs, settings):  # noqa: ANN001, ANN201
        mode = filename.rsplit(".", 1)[0]
        runs = super().parse_phase_run(data, "run.tsv", inputs, settings)
        return [(mode, run) for run in runs]

    def nothing_to_score(self, run):  # noqa: ANN001, ANN201
        return super().nothing_to_score(run[1])

    def score(self, run, gold, inputs, settings):  # noqa: ANN001, ANN201
        mode, parsed = run
        if mode.startswith("slow-"):
            time.sleep(float(mode.removeprefix("slow-")))
        elif mode == "raise":
            raise RuntimeError(f"scorer bug near {SECRET}")
        elif mode == "hang":
            time.sleep(10**6)
        elif mode == "crash":
            os.kill(os.getpid(), signal.SIGKILL)
        elif mode == "memory":
            blob = bytearray(64 * 1024**3)  # MemoryError under the worker's limit
            del blob
        return super().score(parsed, gold, inputs, settings)
