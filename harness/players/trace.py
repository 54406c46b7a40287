"""Seeing a match from the bots' side: every protocol line both ways and every stderr line, as they come.

A ``Trace`` writes one line per item to a text stream (a file, or the terminal's stderr)::

    11:02:03.123456 seat 0 mybot@1.0 > {"type":"request","seq":4,...}
    11:02:03.131020 seat 0 mybot@1.0 < {"type":"decision","seq":4,...}
    11:02:03.131200 seat 0 mybot@1.0 ! thinking about 7H

``>`` is a line the harness sent to the bot, ``<`` a line the bot sent (its bytes before any parsing,
so a malformed reply shows as it was; control characters, in a trace file too, are written as escapes
such as ``\\x1b``, ``terminal_safe``), ``!`` a line the bot wrote to its stderr, and ``#``
a note of the harness (a fault, a seat taken over). Timestamps are UTC wall-clock time with
microseconds. Lines of one seat keep their order; the seats interleave as the lines arrive.

``tap(seat, bot)`` gives the callable a ``BotProcess`` calls with ``(direction, bytes)``; stderr
arrives in chunks and is split into lines here (a last line without a newline is written when the
bot's process ends). Used by ``play --trace``, ``play --show-stderr``, ``bot check --trace`` and
``rerun --trace``; tournaments never trace.
"""

from __future__ import annotations

import re
import sys
import threading
from datetime import datetime, timezone

DIRECTIONS = (">", "<", "!", "#")

# What a terminal would act on rather than show: C0 controls but tab and newline, DEL, C1 controls, and
# the bidirectional overrides and isolates (which reorder what follows them on the line).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written out as an escape (``\\x1b``,
    ``\\u202e``): what a bot wrote (its stderr, its lines, its names) is shown, never obeyed (an OSC
    sequence would set the window title, write the clipboard or hide a link's target). Newlines and
    tabs stay."""
    return _CONTROL.sub(_escape, text)


def json_safe(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters ``terminal_safe`` escapes
    written as ``\\uXXXX`` (JSON escapes the C0 controls itself; this takes the rest): the same JSON."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%H:%M:%S.%f")


class Trace:
    """Lines to ``stream``; ``kinds`` picks which directions are written (default: all)."""

    def __init__(self, stream, kinds: str = "><!#", close: bool = False):
        self.stream = stream
        self.kinds = kinds
        self.lock = threading.Lock()
        self.should_close = close

    @classmethod
    def open(cls, target: str, kinds: str = "><!#") -> "Trace":
        """``-``: the terminal's stderr; otherwise a file, written afresh (line-buffered)."""
        if target == "-":
            return cls(sys.stderr, kinds)
        return cls(open(target, "w", encoding="utf-8", buffering=1), kinds, close=True)

    def write(self, seat: int, bot: str, direction: str, text: str) -> None:
        if direction not in self.kinds:
            return
        line = terminal_safe(f"{_stamp()} seat {seat} {bot} {direction} {text}".replace("\n", " ")) + "\n"
        with self.lock:
            try:
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError):
                pass  # a closed terminal or file never stops a match

    def note(self, seat: int, bot: str, text: str) -> None:
        self.write(seat, bot, "#", text)

    def tap(self, seat: int, bot: str) -> "Tap":
        return Tap(self, seat, bot)

    def close(self) -> None:
        if self.should_close:
            with self.lock:
                self.stream.close()


class Tap:
    """What one bot process calls with ``(direction, data)``: whole lines for ``>`` and ``<``, chunks
    for ``!`` (split into lines here), and ``("!", None)`` when stderr ends."""

    def __init__(self, trace: Trace, seat: int, bot: str):
        self.trace, self.seat, self.bot = trace, seat, bot
        self.partial = b""

    def __call__(self, direction: str, data) -> None:
        if direction != "!":
            self.trace.write(self.seat, self.bot, direction, _text(data))
            return
        if data is None:
            if self.partial:
                self.trace.write(self.seat, self.bot, "!", _text(self.partial))
                self.partial = b""
            return
        lines = (self.partial + bytes(data)).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self.trace.write(self.seat, self.bot, "!", _text(line))


def _text(data) -> str:
    return bytes(data).rstrip(b"\r\n").decode("utf-8", errors="replace")


class Taps:
    """Several traces at once (a trace file and the terminal's stderr): ``tap`` and ``note`` go to each."""

    def __init__(self, traces: list):
        self.traces = [t for t in traces if t is not None]

    def __bool__(self) -> bool:
        return bool(self.traces)

    def tap(self, seat: int, bot: str):
        taps = [t.tap(seat, bot) for t in self.traces]
        if not taps:
            return None

        def both(direction, data):
            for t in taps:
                t(direction, data)
        return both

    def note(self, seat: int, bot: str, text: str) -> None:
        for t in self.traces:
            t.note(seat, bot, text)

    def close(self) -> None:
        for t in self.traces:
            t.close()


def with_notes(taps, then=None):
    """An ``on_event`` callback for ``run_match``: ``then`` (a printer, or None) gets every event, and
    ``taps`` a ``#`` note of each fault and takeover, so that they sit among the lines where they happened."""
    def on_event(e: dict) -> None:
        if then is not None:
            then(e)
        if taps and e["e"] == "harness_fault":
            taps.note(e["seat"], e["bot"], f"fault {e['kind']}: {e['reason']}")
        elif taps and e["e"] == "harness_takeover":
            taps.note(e["seat"], e["bot"], f"{e['by']} plays this seat from decision {e['from_decision']} on")
    return on_event


__all__ = ["Trace", "Tap", "Taps", "DIRECTIONS", "json_safe", "terminal_safe", "with_notes"]
