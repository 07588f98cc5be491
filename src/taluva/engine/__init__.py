"""The rules engine: hexes, tiles, pieces, moves, the position and the rules, standard library only.

Everything above it (AI, terminal, server, research, pictures) reads the game through this
package; it imports nothing above it. The public face is :class:`taluva.engine.game.Game`,
also exported as ``taluva.Game``.
"""
