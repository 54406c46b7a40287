"""The arena as a web service: ``ellibir serve`` (accounts, uploads, the queue, leases, results) and
``ellibir worker`` (plays what the server leases it). Only harness/cli imports this package."""
