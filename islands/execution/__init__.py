"""Running the engine: settings, one run in this process, deployments of instance processes, the one runner."""
