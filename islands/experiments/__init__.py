"""Experiments: experiment-file specs, sweeps, executors, schedules, probes, reproduce and the figure registry."""
