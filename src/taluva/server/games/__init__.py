"""Games in play: the game service, each game's ``Room`` (the one owner of its live state), its
life cycle and clocks, its AI seats, chat, rematch, review and win chances, the view clients
get, and the link that keeps a game's copies in several server processes in step."""
