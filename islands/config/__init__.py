"""A run's settings: :class:`~islands.config.settings.RunConfig` and its sections
(:mod:`islands.config.sections`, generated from the engine's lists by :mod:`islands.config.codegen`).
A bottom layer: it imports nothing of ours but the compiled engine, and that only where a
config is checked or handed to it."""
