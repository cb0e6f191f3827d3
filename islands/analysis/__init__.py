"""Analysis of stored results: the store, statistics of repetitions, comparisons and history checks."""
