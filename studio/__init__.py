"""Voice Studio desktop app (Qt) and command line."""
