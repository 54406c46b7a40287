"""``python -m harness`` runs the ``ellibir`` command."""

from harness.cli.main import main

main()
