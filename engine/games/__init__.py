"""The games, one module each, named after the game: each declares its game once (``engine.game.register``
of a ``GameSpec``), with its built-in bots. ``engine.game`` finds them here; nothing else lists them."""
