"""Keys typed while a turn runs are kept, not lost.

prompt_toolkit is not reading the terminal during a turn, so `keys.Interrupts` feeds the raw
bytes here. Enter queues what was typed as the next input (run when the turn ends, each in
turn: a command, then a message typed after it); text after the last Enter becomes the next
prompt's text. A paste (several characters arriving in
one read) is one message: its inner line breaks stay in the text, and only a line break that
ends it (or a later Enter) queues it. Backspace and Ctrl-U edit, Ctrl-W drops a
word; Ctrl-D on an empty line queues `exit` (the key pressed just as the answer ends still
ends the session, after what was queued before it); arrow keys and other escape sequences are
skipped.
"""

from __future__ import annotations

import codecs

MAX_CHARS = 20_000  # beyond this, typed-ahead text is dropped (a runaway paste)


class TypeAhead:
    def __init__(self) -> None:
        self.queued: list[str] = []  # lines ended by Enter
        self.text = ""  # the line being typed
        self._decode = codecs.getincrementaldecoder("utf-8")("ignore")
        self._esc = ""  # inside an escape sequence: "" | "esc" | "csi" | "ss3"

    def feed(self, data: bytes) -> None:
        chars = self._decode.decode(data)
        if len(chars) > 1:  # a person types a key per read; a paste comes all at once
            chars = chars.replace("\r\n", "\n")
        last = len(chars) - 1
        for i, ch in enumerate(chars):
            if self._esc:
                self._escape(ch)
            elif ch == "\x1b":
                self._esc = "esc"
            elif ch in "\r\n" and i < last:
                if self.text and len(self.text) + sum(map(len, self.queued)) < MAX_CHARS:
                    self.text += "\n"
            elif ch in "\r\n":
                if self.text.strip():
                    self.queued.append(self.text.rstrip("\n"))
                self.text = ""
            elif ch == "\x04" and not self.text:  # Ctrl-D on an empty line: exit, in turn
                self.queued.append("exit")
            elif ch in "\x7f\x08":
                self.text = self.text[:-1]
            elif ch == "\x15":
                self.text = ""
            elif ch == "\x17":
                self.text = self.text.rstrip().rpartition(" ")[0]
                self.text += " " if self.text else ""
            elif ch == "\t":
                self.text += " "
            elif ch >= " " and len(self.text) + sum(map(len, self.queued)) < MAX_CHARS:
                self.text += ch

    def _escape(self, ch: str) -> None:
        if self._esc == "esc":
            self._esc = {"[": "csi", "O": "ss3"}.get(ch, "")  # else Alt-<key>: dropped
        elif self._esc == "ss3" or "@" <= ch <= "~":
            self._esc = ""  # the sequence's final byte

    def take(self) -> tuple[list[str], str]:
        """(the inputs Enter queued, each its own; unfinished text), and start over."""
        out = list(self.queued), self.text
        self.queued, self.text, self._esc = [], "", ""
        self._decode.reset()
        return out

    def shown(self) -> str:
        """One status line for the live region ("" when nothing was typed)."""
        if not (self.queued or self.text):
            return ""
        parts = []
        if self.queued:
            first = self.queued[0][:60].replace("\n", " ⏎ ") + (
                " …" if len(self.queued) > 1 else ""
            )
            parts.append(f"queued: {first} (sent when this turn ends)")
        if self.text:
            parts.append(f"typing: {self.text[-60:]}".replace("\n", " ⏎ "))
        return "↳ " + " · ".join(parts)
