"""The database: its tables and migrations, the store of games, seats and moves, the threads
that run storage calls off the event loop (moves in group commits), and SQLite's checkpoints."""
