"""Matches for people to look at: the self-contained HTML viewer of a match log (``viewer``), the bots'
own lines shown beside its steps (``bot_logs``), its script and style (``assets/``)."""
