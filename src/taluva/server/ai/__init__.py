"""The AI's work for the server, away from the event loop: the worker pool, the fair scheduler
between games, the Redis job queue between processes and the ``taluva ai-worker`` processes."""
