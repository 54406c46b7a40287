"""The harness: runs matches between players (bots) on the engine's game interface."""
