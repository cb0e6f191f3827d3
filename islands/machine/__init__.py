"""The machine: its topology (sysfs), virtual topologies, and where threads, instances and memory go."""
