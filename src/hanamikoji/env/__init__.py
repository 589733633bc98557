"""Research adapters: fixed action and observation encodings, PettingZoo, Gymnasium, OpenSpiel
and a batch simulator.

The adapters need the ``research`` extra (``pip install 'hanamikoji[research]'``): gymnasium,
pettingzoo and open_spiel (numpy and numba come with the package). :mod:`hanamikoji.env.actions` and
:mod:`hanamikoji.env.observation` are the encodings every adapter shares; docs/research.md
describes them.
"""
