"""Research adapters: fixed action and observation encodings, PettingZoo, Gymnasium (single and
vector), OpenSpiel, a batch simulator and a learned policy as an agent.

The adapters need the ``research`` extra (``pip install '.[research]'`` in the project's
folder): gymnasium, pettingzoo and open_spiel (numpy and numba come with the package;
:mod:`hanamikoji.env.batch`, :mod:`hanamikoji.env.policy` and the encodings need nothing more).
:mod:`hanamikoji.env.actions` and :mod:`hanamikoji.env.observation` are the encodings every
adapter shares;
:mod:`hanamikoji.env.hanamikoji_v0` is the PettingZoo env under its versioned name;
docs/research.md describes them all.
"""
