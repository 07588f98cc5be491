"""Taluva for bot writers and AI researchers: a fixed action space, observations, an
OpenSpiel-style state (and pyspiel registration), a PettingZoo environment, datasets, and
running arenas on Ray. See docs/research.md.

Modules, each importable on its own (NumPy is needed from ``observations`` on):
``actions`` (the action space), ``observations`` and ``symmetry`` (planes, rotations),
``state`` (OpenSpiel-style), ``spiel`` (registers ``python_taluva`` with pyspiel),
``taluva_v0`` (PettingZoo), ``dataset`` (JSON Lines records, training samples),
``ray_backend`` (``ray_map`` for ``taluva arena --ray``); for the learned evaluation
(docs/ai.md), ``selfplay`` (games and positions), ``distill`` (searched games and the
search's values), ``value_fit`` (training, scikit-learn), ``rank_fit`` (training on the
search's choices, NumPy) and ``learned_match`` (the search with it against the heuristic's);
``commands`` (what their command lines share).
"""
