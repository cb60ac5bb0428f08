"""Text that fits a mail: every line of the report's text outputs (compare,
demo-table) at most WIDTH (100) columns, without cutting a word.

  wrap(line)      prose broken at spaces, continuation lines indented; a word
                  longer than the width (a path) is kept whole
  wrap_label(s)   a metric or point label broken at spaces, and inside a word
                  longer than the width: continued, never cut, so two labels
                  never read alike
  grid(...)       columns padded to their widest cell; rows that would pass
                  the width go on in bands of the remaining columns below

Widths are display columns: east-asian wide characters count two, combining
marks none (the marks the tables use, ✓ ✗ · – → ± ↑ ↓ µ, count one)."""
import textwrap
import unicodedata

WIDTH = 100
BAND_INDENT = "    "      # a band of columns that did not fit, under its row


def width(s):
    """Display columns of s."""
    n = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def pad(s, w, right=False):
    """s padded with spaces to w display columns (on the left when right)."""
    fill = " " * max(0, w - width(s))
    return fill + s if right else s + fill


def _wrap(line, w, indent, long_words):
    if width(line) <= w:
        return [line]
    lead = line[:len(line) - len(line.lstrip(" "))]
    out = textwrap.wrap(line, w, subsequent_indent=lead + indent, break_long_words=long_words,
                        break_on_hyphens=False)
    return out or [line]


def wrap(line, w=WIDTH, indent="    "):
    """A line of prose as lines of at most w columns, broken at spaces; the
    continuation lines indented by the line's own indent plus `indent`."""
    return _wrap(line, w, indent, False)


def wrap_label(label, w=WIDTH, indent="    "):
    """A label on lines of at most w columns: broken at spaces, a word longer
    than a line continued on the next (never cut, never an ellipsis)."""
    return _wrap(label, w, indent, True)


def widest(lines):
    return max((width(x) for x in lines), default=0)


def _bands(ws, start, w):
    """Split column widths ws into bands that fit w columns: the first band
    starts at column `start`, the others at start + BAND_INDENT."""
    bands, cur, used = [], [], start
    for i, cw in enumerate(ws):
        need = cw + (2 if cur else 0)
        if cur and used + need > w:
            bands.append(cur)
            cur, used = [], start + len(BAND_INDENT)
            need = cw
        cur.append(i)
        used += need
    if cur:
        bands.append(cur)
    return bands


def grid(headers, rows, right=(), indent="", w=WIDTH, rule=True):
    """A table: headers, a rule, rows.  A row is a list of cells (columns two
    spaces apart; columns in `right` right-aligned) or a str, a full line of
    its own (a label above the rows it names; wrapped, not measured).  When the
    columns pass w, each row goes on in bands of the columns that did not fit,
    indented below it, and the headers the same way."""
    cells = [r for r in rows if not isinstance(r, str)] + [headers]
    ws = [max(width(r[i]) for r in cells) for i in range(len(headers))]
    bands = _bands(ws, width(indent), w)

    def lines(r, head=False):
        out = []
        for b, cols in enumerate(bands):
            if b and not head and not any(r[i] for i in cols):
                continue
            text = "  ".join(pad(r[i], ws[i], i in right) for i in cols).rstrip()
            out.append((indent + (BAND_INDENT if b else "") + text).rstrip())
        return out

    head = lines(headers, True)
    body, measured = [], list(head)
    for r in rows:
        if isinstance(r, str):
            body += wrap_label(r, w)
        else:
            ls = lines(r)
            body += ls
            measured += ls
    return head + (["-" * min(w, widest(measured))] if rule else []) + body
