"""Hanamikoji: the rules engine, notation, records, views and agents."""

__version__ = "0.1.0"
