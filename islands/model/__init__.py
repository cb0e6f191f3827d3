"""The Islands model (paper 000 Sec 5, issue 18): calibrated costs, a closed-form prediction of
any deployment's throughput on any topology, a discrete-event simulation for what the closed
form leaves out, and the advisor built on them.

- :mod:`~islands.model.closed_form`: 000's ``T = (1-p) Tlocal + p Tdistr`` and the
  cost-weighted ``1/T = (1-p)/Tlocal + p/Tdistr``;
- :mod:`~islands.model.parameters`: the calibrated costs, their spread and the machine;
- :mod:`~islands.model.engine_costs` and :mod:`~islands.model.machine_costs`: the two halves of
  the parameters, the engine's (``here``: calibrated; ``paper``: Shore-MT from the papers'
  numbers, ``paper_costs.json``) and the machine's (round trips, cross-socket penalty, shape),
  composed by :mod:`~islands.model.cost_composition`;
- :mod:`~islands.model.machine_profile`: other machines' hardware costs (the papers');
- :mod:`~islands.model.workload_spec`: a workload as the model sees it;
- :mod:`~islands.model.predict`: ``predict(topology, deployment, workload)``, with rows held
  through two-phase commit (:mod:`~islands.model.hold_conflicts`) and fragments served while a
  worker waits for its votes (:mod:`~islands.model.fragment_overlap`);
- :mod:`~islands.model.simulation`: ``simulate_deployment(...)`` (simpy), with clients routed to
  their home row's instance (:mod:`~islands.model.routing`);
- :mod:`~islands.model.calibration`: the parameters derived from calibration samples (the runs:
  :mod:`islands.bench.calibration_runs`, ``islands calibrate``);
- :mod:`~islands.model.advisor`: ``advise()`` (``islands advise``), which refuses where the
  model's error on comparable points is too large, beside paper 000's conclusion
  (:mod:`~islands.model.paper_conclusions`);
- :mod:`~islands.model.paper_claims`: paper 000's numbers beside the model's (``--claims``);
- :mod:`~islands.model.deployment_map`: which deployment wins as engine speed and round trip
  vary (``--map``);
- :mod:`~islands.model.validation`: errors on measured points
  (:mod:`~islands.model.measured_point`) and the papers' trends;
- :mod:`~islands.model.leave_one_out`: each measured point predicted from all the others, with
  its repetitions' interval (``benchmarks/model_loo_points.py``);
- :mod:`~islands.model.paper_shapes`: what paper 000 reported for each figure, as data;
- :mod:`~islands.model.figure_axes`: paper 000's figures as the model sees them, and sweep
  rows as measured points (drawn by :mod:`islands.plots.model_figures`).
"""

from islands.model.closed_form import cost_weighted_throughput, fit_cost_weighted, linear_throughput
from islands.model.machine_profile import PROFILES, MachineProfile, profile_for
from islands.model.parameters import Parameters, default_parameters, load_parameters
from islands.model.predict import Prediction, predict
from islands.model.workload_spec import KINDS, ModelWorkload, parse_workload

__all__ = [
    "KINDS",
    "PROFILES",
    "MachineProfile",
    "ModelWorkload",
    "Parameters",
    "Prediction",
    "cost_weighted_throughput",
    "default_parameters",
    "fit_cost_weighted",
    "linear_throughput",
    "load_parameters",
    "parse_workload",
    "predict",
    "profile_for",
]
