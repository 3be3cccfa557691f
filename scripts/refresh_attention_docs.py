"""Refresh the sample output of the main job in README.md and docs/attention-output.md.

Usage (from the repository root):

    cargo run --release --example attention_heads > /tmp/attention.txt
    python3 scripts/refresh_attention_docs.py /tmp/attention.txt

Both documents show one real run, trimmed: every ```text block of
docs/attention-output.md whose first line is a section header of the run
(`── 2 · split heads …`, `GPT-2 attention layouts …`) is replaced by that
section, with the K and V rows of step 2 shown as `…`; README.md's block
under "The main job" gets the sections a newcomer reads first, without the
logical-offsets column and with only the Q rows of steps 1 and 2. The prose
around the blocks is not touched: reread it after a change of the example.
Standard library only.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_SECTIONS = ["GPT-2 attention layouts", "── 1 ", "── 2 ", "── 3 ", "── 4a ", "── 4b ", "── 4c ", "── 5 ", "── bytes", "── time", "OK"]
README_BYTES_LINES = ("  step ", "  total ", "  copied here:", "  copied ")


def sections(run: str) -> list[list[str]]:
    """The run's sections, as lists of lines: blank-line separated blocks, a
    block that does not open with a header (`──`, the title, the verdict)
    belonging to the section before it, blank line included."""
    merged: list[list[str]] = []
    for block in run.strip("\n").split("\n\n"):
        lines = block.splitlines()
        if merged and not lines[0].startswith(("──", "GPT-2 attention", "OK", "FAILED")):
            merged[-1] += [""] + lines
        else:
            merged.append(lines)
    return merged


def find(all_sections: list[list[str]], header: str) -> list[str]:
    """The section whose first line starts with `header`."""
    for section in all_sections:
        if section[0].startswith(header):
            return section
    raise SystemExit(f"the run has no section starting with {header!r}")


def drop_column(line: str, index: int) -> str:
    """`line` without its `index`-th table cell (separators `|`, dashes `+`)."""
    separator = "|" if " | " in line else "+" if re.match(r"^\s*-+\+", line) else None
    if separator is None:
        return line
    cells = line.split(separator)
    del cells[index]
    return separator.join(cells)


def without_offsets(section: list[str]) -> list[str]:
    """A trace section without its `logical offsets` column."""
    header = next((line for line in section if "logical offsets" in line), None)
    if header is None:
        return section
    index = [cell.strip() for cell in header.split("|")].index("logical offsets")
    return [drop_column(line, index) for line in section]


def only_q_rows(section: list[str]) -> list[str]:
    """A step 1 / 2 section with the K and V rows left out."""
    return [line for line in section if not re.match(r"^  [KV][ .]", line)]


def kv_as_ellipsis(section: list[str]) -> list[str]:
    """A step 2 section with the K and V rows shown as one `…` line."""
    kept, elided = [], False
    for line in section:
        if re.match(r"^  [KV]\.", line):
            if not elided:
                kept.append("  …")
                elided = True
            continue
        kept.append(line)
    return kept


def readme_block(all_sections: list[list[str]]) -> str:
    parts = []
    for header in README_SECTIONS:
        section = find(all_sections, header)
        if header in ("── 1 ", "── 2 "):
            section = only_q_rows(section)
        if header == "── bytes":
            section = [section[0]] + [line for line in section[1:] if line.startswith(README_BYTES_LINES)]
        parts.append("\n".join(without_offsets(section)))
    return "\n\n".join(parts)


def replace_blocks(document: str, replacement) -> str:
    """`document` with each ```text block passed through `replacement(first_line, body)`."""

    def substitute(match: re.Match) -> str:
        body = match.group(1)
        new = replacement(body.splitlines()[0], body)
        return f"```text\n{new}\n```"

    return re.sub(r"```text\n(.*?)\n```", substitute, document, flags=re.S)


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    all_sections = sections(Path(sys.argv[1]).read_text(encoding="utf-8"))
    if all_sections[-1][-1] != "OK: every check passed":
        raise SystemExit("the run did not pass its checks: refusing to publish it")

    docs = ROOT / "docs/attention-output.md"

    def doc_section(first_line: str, body: str) -> str:
        header = first_line.split("·")[0] if first_line.startswith("──") else first_line[:24]
        if first_line.startswith("── bytes") or first_line.startswith("── time"):
            header = first_line
        section = find(all_sections, header.rstrip())
        if first_line.startswith("── 2 "):
            section = kv_as_ellipsis(section)
        if first_line.startswith("── time"):
            section = section + ["", "OK: every check passed"]
        return "\n".join(section)

    docs.write_text(replace_blocks(docs.read_text(encoding="utf-8"), doc_section), encoding="utf-8")

    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    start = text.index("## The main job")
    head, tail = text[:start], text[start:]
    block = readme_block(all_sections)
    tail = re.sub(r"```text\n.*?\n```", lambda _: f"```text\n{block}\n```", tail, count=1, flags=re.S)
    readme.write_text(head + tail, encoding="utf-8")
    print(f"refreshed {docs.relative_to(ROOT)} and {readme.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
