"""The people: accounts and their sessions, player names, ratings, the standings a finished game
leaves behind, profiles and the leaderboard."""
