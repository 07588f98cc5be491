"""The expansions, one module each: what they add and the limits they put on the base rules."""
