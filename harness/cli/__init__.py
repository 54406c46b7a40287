"""The command line: the typer app and one module a command group, each a thin layer over a library
call (options -> a config or spec -> one call; bad input -> one line, exit code 2). The ``ellibir``
script and ``python -m harness`` start ``harness.cli.main``; no other package imports this one."""
