"""The base game's rules as plain functions, one module per topic of docs/rules.md."""
