"""Tournaments and sweeps: options, the plan and its design, seeds turned into deals, the runner and its
executors (this process or Ray), what a worker node checks, the run folder with its lock, parts and
stderr files, the listeners (standings, SPRT, ratings, progress), reruns of a planned match."""
