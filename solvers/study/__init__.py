"""The study of rule sets and of strategies: structure, distributions, the field's metrics, the benchmark suite."""
