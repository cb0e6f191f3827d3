"""Figures, one module per figure family; each draws from stored result rows into a PNG."""
