"""The registry of submitted bots (``registry``: submit, list, resolve ``NAME@VERSION`` to a folder,
ratings), ``bot check`` (``check``) and the ladder of the arena's runs (``ladder``)."""
