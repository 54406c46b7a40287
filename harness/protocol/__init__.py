"""The bot protocol: messages to and from bot programs, sequence ids, deltas and redaction
(``messages``), the fast building of a view's JSON (``viewjson``), and the JSON Schemas of every
message (``schemas/``)."""
