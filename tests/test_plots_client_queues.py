"""The request queue length over time (islands.plots.client_queues), drawn from real short runs
with the client layer: one line per PLP worker's queue, its samples as the run took them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import islands
from islands.config.settings import RunConfig
from islands.plots.client_queues import plot_queue_lengths, queue_series
from test_plp_clients import config as plp_config

CPUS = islands.read_topology().cpus
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]


def skewed_plp() -> RunConfig:
    """test_plp_clients' short PLP run (two workers, 8 closed-loop clients) with Zipf s = 1
    (worker 0's range hot), the queues sampled every 0.05 s."""
    c = plp_config(zipf_s=1.0)
    return dataclasses.replace(c, driver=dataclasses.replace(c.driver, timeline_interval_s=0.05))


def test_the_plot_draws_each_plp_worker_s_queue_from_a_real_run():
    result = islands.run(skewed_plp())
    drawing = plot_queue_lengths(result, "Skewed PLP")
    ax = drawing.figure.axes[0]
    lines = [line for line in ax.get_lines() if line.get_label() in ("worker 0", "worker 1")]
    assert [line.get_label() for line in lines] == ["worker 0", "worker 1"]
    # The lines are the run's samples of each worker's own queue (which one is longer at an
    # instant depends on which worker the machine ran then: no assertion on it).
    for line, worker in zip(lines, result.clients["workers"], strict=True):
        assert list(np.asarray(line.get_ydata())) == worker["queue_lengths"]
        assert len(worker["queue_lengths"]) >= 5  # 0.3 s sampled every 0.05 s
        assert max(worker["queue_lengths"]) <= 8  # closed loop: never more waiting than clients
    # Time in seconds across the window, the units named, the legend outside the data.
    assert ax.get_lines()[0].get_xdata()[-1] <= 0.3 + 0.05
    assert "(s)" in ax.get_xlabel() and "queue length" in ax.get_ylabel()
    assert ax.get_title().startswith("Skewed PLP\nmicro, plp, 8 closed-loop clients")
    legend = ax.get_legend()
    assert legend is not None and legend.get_bbox_to_anchor().x0 >= ax.get_window_extent().x1 - 1
    assert drawing.summary.splitlines()[0].startswith("worker 0: mean")


def test_a_run_without_clients_has_no_queue_to_plot():
    c = skewed_plp()
    result = islands.run(dataclasses.replace(c, driver=dataclasses.replace(c.driver, clients="workers")))
    with pytest.raises(ValueError, match="^queue lengths: the run had no client layer"):
        queue_series(result.clients)
