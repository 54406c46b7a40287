"""One match: ``MatchSpec`` and ``run_match`` (game-neutral, players for each seat, the fault policy
applied), the annotated match log (``log``) and a match printed for people (``show``)."""
