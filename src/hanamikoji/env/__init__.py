"""Research adapters: fixed action and observation encodings, PettingZoo, Gymnasium, OpenSpiel
and a batch simulator.

These need the ``research`` extra (``pip install 'hanamikoji[research]'``): numpy, numba,
gymnasium, pettingzoo and open_spiel. :mod:`hanamikoji.env.actions` and
:mod:`hanamikoji.env.observation` are the encodings every adapter shares; docs/research.md
describes them.
"""
