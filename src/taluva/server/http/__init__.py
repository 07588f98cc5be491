"""The server's doors: the FastAPI application, one router per concern, the WebSocket of a game,
the request guard and the schema of what clients may send. Nothing below imports this package."""
