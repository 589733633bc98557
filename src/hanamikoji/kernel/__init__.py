"""The rules as arrays: one game as one int64 row, and the rules over it compiled with numba.

It imports only the core (cards, moves, state) and serves the batch simulator
(:mod:`hanamikoji.env.batch`), the greedy kernel (:mod:`hanamikoji.ai.fastplay`) and the fast
search (:mod:`hanamikoji.ai.fastsearch`) alike:

- :mod:`~.actions`: the numbering of every distinct move (534 action ids);
- :mod:`~.tables`: what each action does, which actions each hand allows;
- :mod:`~.row`: the row's columns, and the row of a :class:`~hanamikoji.state.Position`;
- :mod:`~.rules`: legal actions, a move, a turn's end, a round's scoring, new rounds and games,
  the random stream (splitmix64);
- :mod:`~.jit`: numba's compiler, typed.

Kept honest the pgx way: the tests play thousands of games through these kernels and through
:class:`~hanamikoji.state.State` and compare every step.
"""
