"""``python -m harness`` runs the ``ellibir`` command."""

from .cli import main

main()
