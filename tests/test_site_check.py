"""The site check's code-cell rule (issue 30): a visible code cell over 15 non-blank lines fails,
a folded (hide-input) or removed one does not count."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from check_site import MAX_VISIBLE_LINES, longest_visible_cell  # noqa: E402


def _cell(lines: int, tags: str = "") -> str:
    code = "\n".join(f"x{i} = {i}" for i in range(lines))
    return (f'<div class="cell {tags} docutils container"><div class="cell_input docutils container">'
            f'<div class="highlight"><pre><span>{code}</span>\n\n</pre></div></div>'
            '<div class="cell_output docutils container"><pre>out</pre></div></div>')


def test_the_longest_visible_cell_counts_only_unfolded_code(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<html><body><article>" + _cell(4) + _cell(40, "tag_hide-input") + _cell(30, "tag_remove-input")
                    + _cell(MAX_VISIBLE_LINES + 1) + "</article></body></html>")
    assert longest_visible_cell(page) == (MAX_VISIBLE_LINES + 1, "x0 = 0")
    page.write_text("<html><body>" + _cell(3) + _cell(50, "tag_hide-input") + "</body></html>")
    assert longest_visible_cell(page)[0] == 3
