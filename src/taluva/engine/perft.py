"""Perft: counting move sequences (docs/notation.md), how two implementations prove they agree."""

from __future__ import annotations

from taluva.engine.game import Game


def perft(game: Game, depth: int) -> int:
    """Number of distinct sequences of ``depth`` legal moves; a game-ending move ends one."""
    if depth <= 0:
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        game.push(move)  # legal by construction: no need to check it again
        total += 1 if game.is_over else perft(game, depth - 1)
        game.pop()
    return total


def divide(game: Game, depth: int) -> dict[str, int]:
    """Perft split by first move (canonical text), for finding where two engines part."""
    counts = {}
    for move in game.legal_moves():
        game.push(move)
        counts[str(move)] = 1 if game.is_over or depth <= 1 else perft(game, depth - 1)
        game.pop()
    return dict(sorted(counts.items()))
