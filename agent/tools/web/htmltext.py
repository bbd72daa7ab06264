"""HTML to readable markdown with the standard library's html.parser.

Headings become `#`, links `[text](url)`, lists `-`/`1.`, pre blocks fenced code, inline code
backticks; scripts, styles, navigation and other chrome are dropped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

SKIP = {"script", "style", "nav", "noscript", "svg", "template", "iframe", "object", "canvas"}
VOID = {"br", "img", "hr", "input", "meta", "link", "area", "base", "col", "source", "wbr"}
BLOCK = {
    "p", "div", "section", "article", "main", "header", "footer", "aside", "form", "table",
    "figure", "figcaption", "details", "summary", "dl", "dt", "dd", "address", "fieldset",
}  # fmt: skip
INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*", "br": "\n"}
_SPACE = re.compile(r"\s+")


class Markdown(HTMLParser):
    """Streams markdown into a list of pieces; `marks` remember where a link or quote began."""

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base_url
        self.out: list[str] = []
        self.skip = 0  # depth inside dropped elements
        self.pre = 0
        self.lists: list[list[int]] = []  # one [counter] per open list; -1 for bullets
        self.marks: list[tuple[str, int, str]] = []  # (tag, position in out, href)
        self.title = ""
        self.in_title = False
        self.fence_at = -1  # len(out) right after the last opening ``` fence

    def _tail(self) -> str:
        return "".join(self.out[-3:])

    def _newlines(self, count: int) -> None:
        """End the current line and leave `count - 1` blank lines (not at the very start)."""
        if not self.out:
            return
        tail = self._tail()
        have = len(tail) - len(tail.rstrip("\n"))
        if have < count:
            self.out.append("\n" * (count - have))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIP:
            self.skip += 1
        if self.skip:
            return
        attr = {k: v or "" for k, v in attrs}
        if tag == "title":
            self.in_title = True
        elif tag == "base" and attr.get("href"):
            self.base = urljoin(self.base, attr["href"])
        elif re.fullmatch(r"h[1-6]", tag):
            self._newlines(2)
            self.out.append("#" * int(tag[1]) + " ")
        elif tag in ("ul", "ol", "li"):
            self._list_start(tag)
        elif tag in ("pre", "code"):
            self._code_start(tag, attr)
        elif tag in ("a", "blockquote"):
            self.marks.append((tag, len(self.out), attr.get("href", "")))
            if tag == "blockquote":
                self._newlines(2)
        elif tag in INLINE:
            self.out.append(INLINE[tag])
        elif tag == "hr":
            self._newlines(2)
            self.out.append("---\n\n")
        elif tag == "img" and attr.get("alt"):
            self.out.append(f"[image: {attr['alt']}]")
        elif tag in ("td", "th") and not self._tail().endswith(("\n", "| ")):
            self.out.append(" | ")
        elif tag == "tr" or tag in BLOCK:
            self._newlines(1 if tag in ("tr", "div", "dt", "dd") else 2)

    def _list_start(self, tag: str) -> None:
        if tag != "li":
            self._newlines(1 if self.lists else 2)
            self.lists.append([0 if tag == "ol" else -1])  # a counter, or -1 for bullets
            return
        self._newlines(1)
        counter = self.lists[-1] if self.lists else [-1]
        if counter[0] >= 0:
            counter[0] += 1
        bullet = f"{counter[0]}. " if counter[0] >= 0 else "- "
        self.out.append("  " * max(len(self.lists) - 1, 0) + bullet)

    def _code_start(self, tag: str, attr: dict[str, str]) -> None:
        if tag == "pre":
            self._newlines(2)
            self.out.append("```" + _language(attr) + "\n")
            self.pre += 1
            self.fence_at = len(self.out)
        elif self.pre and len(self.out) == self.fence_at:
            # <pre><code class="language-x">: the language sits on the inner code element.
            self.out[-1] = "```" + _language(attr) + "\n"
        elif not self.pre:
            self.out.append("`")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self.skip = max(self.skip - 1, 0)
            return
        if self.skip or tag in VOID:
            return
        if tag == "title":
            self.in_title = False
        elif re.fullmatch(r"h[1-6]", tag) or tag in BLOCK:
            self._newlines(2)
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            self._newlines(1 if self.lists else 2)
        elif tag == "pre" and self.pre:
            self.pre -= 1
            self._newlines(1)
            self.out.append("```\n\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in INLINE:  # <br> never gets here: it is void
            self.out.append(INLINE[tag])
        elif tag in ("a", "blockquote"):
            self._close_mark(tag)

    def _close_mark(self, tag: str) -> None:
        """Wrap what was written since the matching start tag: `[text](url)` or `> ` lines."""
        while self.marks:
            opened, at, href = self.marks.pop()
            if opened != tag:
                continue
            inner = "".join(self.out[at:])
            del self.out[at:]
            if tag == "blockquote":
                quoted = "\n".join("> " + ln if ln else ">" for ln in inner.strip().split("\n"))
                self.out.append(quoted + "\n\n")
                return
            text = _SPACE.sub(" ", inner).strip()
            usable = href and not href.startswith(("javascript:", "#", "mailto:"))
            link = urljoin(self.base, href) if usable else ""
            self.out.append(f"[{text}]({link})" if link and text else text)
            return

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title += data
            return
        if self.pre:
            self.out.append(data)
            return
        text = _SPACE.sub(" ", data)
        if text.strip() == "" and self._tail().endswith((" ", "\n")):
            return
        if self._tail().endswith(("\n", " ", "- ", ". ")) or not self.out:
            text = text.lstrip()
        self.out.append(text)

    def result(self) -> str:
        text = "".join(self.out)
        text = re.sub(r"[ \t]+\n", "\n", text)
        return re.sub(r"\n{3,}", "\n\n", text).strip()


def _language(attr: dict[str, str]) -> str:
    found = re.search(r"(?:language|lang)-([\w+-]+)", attr.get("class", ""))
    return found.group(1) if found else ""


def html_to_markdown(html: str, base_url: str = "") -> tuple[str, str]:
    """(title, markdown body) of an HTML document."""
    parser = Markdown(base_url)
    parser.feed(html)
    parser.close()
    return _SPACE.sub(" ", parser.title).strip(), parser.result()
