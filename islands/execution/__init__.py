"""Running the engine: one run in this process, deployments of instance processes, the one runner."""
