"""Measuring around a run: PMUs, simulated caches, code-module profiles, host metadata and machine state."""
