"""The tiny experiment file the sweep tests share: micro, one shared instance, read and update
at 0% and 50% multisite, 0.05 s runs."""

TINY = """
name = "tiny"
figure = "none"

[run]
warmup_s = 0.0
duration_s = 0.05
repetitions = 2

[grid]
deployment = ["1"]
update = [false, true]
multisite = [0.0, 0.5]

[micro]
rows_per_txn = 2
rows_per_site = 500
"""


def tiny(repetitions: int = 2, deployment: str = '["1"]', name: str = "tiny") -> str:
    """TINY with another number of repetitions, deployment list or name."""
    return (
        TINY.replace("repetitions = 2", f"repetitions = {repetitions}")
        .replace('deployment = ["1"]', f"deployment = {deployment}")
        .replace('name = "tiny"', f'name = "{name}"')
    )


class QuietExecutor:
    """Runs points here, in order, as :class:`~islands.experiments.executors.LocalExecutor`
    does, but records a quiet machine around each (no other process busy, no steal): rows
    whose verdicts must not depend on what else this machine was doing meanwhile
    (``islands compare`` leaves busy runs out)."""

    def run(self, points, runner):  # type: ignore[no-untyped-def]
        from islands.experiments.executors import Finished

        for point in points:
            yield Finished(point, dict(runner(point)), 0.01, {"busy": False, "steal_share": 0.0})
