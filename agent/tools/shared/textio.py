"""Text encodings: detect (BOM, UTF-8, UTF-16 without BOM, cp1251/GB18030 fallback), decode,
re-encode exactly as found, write files atomically. (difftext.py diffs two versions.)
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

SNIFF_BYTES = 8192

# Longest BOM first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class TextFormat:
    """How a file's text is stored, so a rewrite keeps it byte-for-byte compatible."""

    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    fallback: bool = False  # True when not UTF-8 and the encoding was guessed

    @property
    def ascii_compatible(self) -> bool:
        """True when b"\\n" bytes are exactly the line breaks (not UTF-16/32)."""
        return not self.encoding.startswith(("utf-16", "utf-32"))

    def label(self) -> str:
        """Short form for summaries: `cp1251, CRLF`."""
        bom = " with BOM" if self.bom else ""
        return f"{self.encoding}{bom}, {'CRLF' if self.newline == chr(13) + chr(10) else 'LF'}"

    def describe(self) -> str:
        name = self.encoding + (" with BOM" if self.bom else "")
        if self.fallback:
            name += " (not valid UTF-8; decoded with a fallback guess)"
        return name


def sniff_bom(head: bytes) -> tuple[str, bytes] | None:
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, bom
    return None


def sniff_utf16(head: bytes) -> str | None:
    """UTF-16 without a BOM: ASCII-heavy text has a NUL in every other byte."""
    sample = head[: SNIFF_BYTES - SNIFF_BYTES % 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul > 0.4 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.4 and odd_nul < 0.05:
        return "utf-16-be"
    # Mostly non-ASCII (Cyrillic, CJK): only spaces, digits and punctuation have a NUL half,
    # always on the same side. Binary data has NULs on both sides, or does not decode cleanly.
    if odd_nul and not even_nul and _text_like(sample, "utf-16-le"):
        return "utf-16-le"
    if even_nul and not odd_nul and _text_like(sample, "utf-16-be"):
        return "utf-16-be"
    return None


def _text_like(sample: bytes, encoding: str) -> bool:
    """The sample decodes strictly and reads as text: no control characters but whitespace,
    nothing unassigned or private."""
    import unicodedata

    try:
        text = codecs.getincrementaldecoder(encoding)().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    odd = sum(
        1
        for ch in set(text)
        if ch not in "\t\n\r\f" and unicodedata.category(ch) in ("Cc", "Cn", "Co", "Cs")
    )
    return odd == 0 and any(ch in text for ch in " \n")


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first 8 KB mean binary, unless the text is UTF-16/32."""
    if sniff_bom(head) is not None and not head.startswith(codecs.BOM_UTF8):
        return False
    return b"\0" in head[:SNIFF_BYTES] and sniff_utf16(head) is None


def utf8_ok(data: bytes) -> bool:
    """Valid UTF-8, allowing one character cut off at the end (a sample or a cut stream)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.reason == "unexpected end of data" and exc.start >= len(data) - 3
    return True


def utf8_like(data: bytes) -> bool:
    """UTF-8, or UTF-8 with a few stray bytes: valid multi-byte characters far outnumber the
    bad sequences (legacy cp1251/GB18030 text almost never forms valid UTF-8 sequences).

    A lone high byte between ASCII ones (a Latin-1 é in an ASCII comment) does not count as
    evidence: cp1251 words and GB18030 characters are runs of high bytes."""
    if utf8_ok(data):
        return True
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.count("\ufffd".encode())
    bad -= len(_LONE_HIGH.findall(data))  # each is one U+FFFD of its own
    good = sum(1 for ch in text if ord(ch) > 0x7F) - text.count("\ufffd")
    return good >= 4 * bad


_HIGH_RUN = re.compile(rb"[\x80-\xff]{2}")
_MULTIBYTE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")  # the start of a UTF-8 character
_LONE_HIGH = re.compile(rb"(?<![\x80-\xff])[\x80-\xff](?![\x80-\xff])")


def guess_legacy(sample: bytes) -> str:
    """Pick cp1252, cp1251 or GB18030 for bytes that are not UTF-8.

    Russian cp1251 text puts nearly all high bytes in 0xC0-0xFF (letters) plus Ё/ё; GB18030
    Chinese spreads its lead/trail bytes over 0x81-0xFE. And Cyrillic text with spaces is
    rarely valid GB18030, while almost any bytes decode as cp1251.
    """
    high = [b for b in sample if b >= 0x80]
    if not high:
        return "cp1251"
    if not _HIGH_RUN.search(sample):
        return "cp1252"  # only lone high bytes (café, 25°C): Western text, not Cyrillic words
    cyrillic = sum(1 for b in high if b >= 0xC0 or b in (0xA8, 0xB8)) / len(high)
    try:
        sample.decode("gb18030")
    except UnicodeDecodeError:
        # A multi-byte character cut at the end of the sample is not evidence against GB18030.
        try:
            sample[:-1].decode("gb18030")
        except UnicodeDecodeError:
            return "cp1251"
    return "cp1251" if cyrillic >= 0.9 else "gb18030"


def legacy_file(data: bytes) -> str | None:
    """The encoding of file bytes that are not UTF-8 (None for UTF-8, also with a few stray
    bytes among UTF-8 characters). Lone high bytes in ASCII text (café) are Latin-1 text, not
    stray bytes: an edit writing UTF-8 beside them would mix two encodings. cp1252 only when
    some are 0x80-0x9F (€, curly quotes); else both read alike, and Latin-1 refuses the € that
    a Latin-1 reader would see as a control character."""
    if output_is_utf8(data):
        return None
    guess = guess_legacy(data[: 1 << 20])
    if guess != "cp1252":
        return guess
    if _C1.search(data) is None:
        return "latin-1"
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D: no cp1252 character
        return "latin-1"
    return "cp1252"


_C1 = re.compile(rb"[\x80-\x9f]")


def detect(data: bytes) -> TextFormat:
    """The encoding, BOM and dominant line ending of `data` (whole file or a large sample)."""
    found = sniff_bom(data)
    fallback = False
    if found:
        encoding, bom = found
    else:
        bom = b""
        encoding = sniff_utf16(data[:SNIFF_BYTES]) or "utf-8"
        if encoding == "utf-8":
            encoding = legacy_file(data) or "utf-8"
            fallback = encoding != "utf-8"
    text = data[len(bom) :].decode(encoding, errors="replace")
    return TextFormat(encoding, bom, newline_style(text), fallback)


def newline_style(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def decode(data: bytes, fmt: TextFormat | None = None) -> tuple[str, TextFormat, int]:
    """Text of `data`, its format, and how many undecodable bytes became U+FFFD."""
    fmt = fmt or detect(data)
    body = data[len(fmt.bom) :]
    try:
        return body.decode(fmt.encoding), fmt, 0
    except UnicodeDecodeError:
        pass
    text = body.decode(fmt.encoding, errors="replace")
    # "replace" inserts one U+FFFD per bad sequence and "ignore" none: the difference counts them.
    bad = len(text) - len(body.decode(fmt.encoding, errors="ignore"))
    return text, fmt, bad


def with_newlines(text: str, newline: str) -> str:
    """`text` with every line ending converted to `newline`."""
    unified = text.replace("\r\n", "\n")
    return unified if newline == "\n" else unified.replace("\n", newline)


def encode(text: str, fmt: TextFormat, errors: str = "strict") -> bytes:
    """Bytes for `text` in `fmt`; raises UnicodeEncodeError for unrepresentable characters.

    errors="surrogateescape" writes back stray bytes kept by `decode_escaped`."""
    return fmt.bom + text.encode(fmt.encoding, errors)


def decode_escaped(data: bytes, fmt: TextFormat) -> str:
    """Text of `data` with each undecodable byte kept as a lone surrogate (U+DC80-U+DCFF), so
    `encode(..., errors="surrogateescape")` gives the same bytes back."""
    return data[len(fmt.bom) :].decode(fmt.encoding, errors="surrogateescape")


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def printable(text: str) -> str:
    """`text` with lone surrogates (escaped stray bytes, odd file names) as U+FFFD, the way
    read_file shows undecodable bytes: a lone surrogate cannot be encoded as UTF-8 or JSON."""
    return _SURROGATE.sub("\ufffd", text)


def output_is_utf8(data: bytes) -> bool:
    """Whether `decode_output` reads `data` as UTF-8 (with U+FFFD for any stray bytes)."""
    return utf8_ok(data) or (_MULTIBYTE.search(data) is not None and utf8_like(data))


def decode_output(data: bytes, errors: str = "replace") -> tuple[str, str | None]:
    """Process output as text and the fallback encoding used (None for UTF-8).

    UTF-8, also with a few stray bytes when valid UTF-8 characters show it is UTF-8 (one bad
    byte must not turn valid UTF-8 into cp1251 mojibake), else a cp1252/cp1251/GB18030 guess
    the caller should state (`25\xb0C` is 25°C). Undecodable bytes become U+FFFD, or lone
    surrogates with errors="surrogateescape" (to count them)."""
    if output_is_utf8(data):
        return data.decode("utf-8", errors=errors), None
    encoding = guess_legacy(data[: 1 << 20])
    return data.decode(encoding, errors=errors), encoding
