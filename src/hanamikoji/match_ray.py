"""The Ray backend of the match runner, now :mod:`hanamikoji.match.ray` (this name is kept)."""

from hanamikoji.match.ray import PairRunner, ray_map, ray_pairs

__all__ = ["PairRunner", "ray_map", "ray_pairs"]
