"""Dies before reading anything."""
raise RuntimeError("crash at start")
