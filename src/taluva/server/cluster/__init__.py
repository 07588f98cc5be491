"""Several server processes: the bus that passes every broadcast of one process on to the
others (Redis pub/sub)."""
