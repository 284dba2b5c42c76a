"""Figures of the study for a paper: cactus, ECDF and scatter plots in PDF, SVG and PNG, one column wide and
untitled by default, the caption in the metadata (drawn when asked), labelled axes and limits, every strategy
drawn and in the legend, one colour per strategy across figures, a top-N selection; the per-family table."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from flipgame.cli import main
from flipgame.study.cactus import plot_cactus, plot_ecdf
from flipgame.study.compare import Run, StrategyStudy
from flipgame.study.family_table import family_rows, write_table
from flipgame.study.figures import (
    OKABE_ITO,
    VBS_STYLE,
    Context,
    FigureOptions,
    plot_scatter,
    plot_strategies,
    ranking,
)

LIMIT = 5.0
CONTEXT = Context("Test CPU, 2 cores, 4 GiB", "0.1.0", 1.0)


def many_runs(strategies: int = 10) -> list[Run]:
    """Two families of three instances; strategy s{k} takes (k + 1) x 10 ms a board, s9 times out on torus
    4x4 and so does not run the larger torus boards."""
    out = []
    for fam in ("random", "torus"):
        for n in (4, 6, 8):
            for k in range(strategies):
                name = f"s{k}"
                if fam == "torus" and k == 9:
                    out.append(Run(fam, n, 0, 0, name, "UNKNOWN", None, LIMIT + 0.5) if n == 4 else
                               Run(fam, n, 0, 0, name, "not run", note="after a time-out at 4x4 (nullity 0)"))
                else:
                    out.append(Run(fam, n, 0, 0, name, "OPTIMAL", n, (k + 1) * 0.01 * n))
    return out


def pdf_info(data: bytes) -> dict[str, str]:
    """The string entries of a PDF's document information dictionary (``/Title (...)``, unescaped)."""
    out = {}
    for key, raw in re.findall(rb"/(Title|Subject|Creator) \(((?:[^()\\]|\\.)*)\)", data):
        out[key.decode()] = re.sub(rb"\\(.)", rb"\1", raw).decode("latin-1")
    return out


def pdf_width_inches(data: bytes) -> float:
    """The width of a one-page PDF's MediaBox, in inches."""
    box = re.search(rb"/MediaBox \[\s*([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)\s*\]", data)
    return (float(box.group(3)) - float(box.group(1))) / 72


@pytest.mark.needs("matplotlib")
def test_the_default_cactus_pdf_is_one_column_wide_untitled_with_the_caption_in_its_metadata(tmp_path):
    path = tmp_path / "fig.pdf"
    colours = plot_cactus(many_runs(), LIMIT, str(path), context=CONTEXT)
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert pdf_width_inches(data) <= 3.5
    info = pdf_info(data)
    assert info["Title"] == "flipgame study"  # metadata only: no title is drawn
    caption = info["Subject"]
    assert "the 7 best of 10 strategies (most solved, then PAR-2)" in caption and "6 instances" in caption
    assert "time limit 5 s of wall-clock time per run, stopped at 6 s" in caption
    assert "Machine: Test CPU, 2 cores, 4 GiB" in caption
    assert list(colours) == [f"s{k}" for k in range(7)] + ["VBS"]  # the top 7 by solved then PAR-2, and the VBS
    assert colours["VBS"] == VBS_STYLE["color"] and list(colours.values())[:7] == list(OKABE_ITO)
    assert VBS_STYLE["zorder"] < 3  # under every strategy: it hides none


@pytest.mark.needs("matplotlib")
def test_the_cactus_page_shows_axes_limit_and_every_strategy_in_the_legend(tmp_path):
    """The page itself, read back by a PDF library: what a reader of the paper sees."""
    from pypdf import PdfReader

    path = tmp_path / "fig.pdf"
    plot_cactus(many_runs(3), LIMIT, str(path), context=CONTEXT)
    (page,) = PdfReader(path).pages
    words = " ".join(page.extract_text().split())
    assert all(text in words for text in ["instances solved", "seconds per instance (log)", "limit 5 s", "s0", "s1",
                                          "s2", "VBS"])
    assert "Cactus plot" not in words and "flipgame study" not in words  # no caption, no title drawn
    assert "all families" not in words  # one panel: no panel title either


@pytest.mark.needs("matplotlib")
def test_title_caption_two_columns_and_family_panels_on_request(tmp_path):
    from pypdf import PdfReader

    path = tmp_path / "fig.pdf"
    plot_ecdf(many_runs(3), LIMIT, str(path), context=CONTEXT,
              options=FigureOptions(width="two", title="Figure 3", caption=True, panels="families"))
    data = path.read_bytes()
    assert 6.5 <= pdf_width_inches(data) <= 7.6
    words = " ".join(PdfReader(path).pages[0].extract_text().split())
    assert all(text in words for text in ["Figure 3", "Empirical distribution", "random (3 instances)",
                                          "torus (3 instances)", "share solved", "seconds (log)"])


@pytest.mark.needs("matplotlib")
def test_the_same_strategy_has_the_same_colour_in_every_figure(tmp_path):
    runs = many_runs()
    st = StrategyStudy([f"s{k}" for k in range(10)], ["random", "torus"], {"random": [4, 6, 8], "torus": [4, 6, 8]},
                       1, LIMIT, 100.0, 0, runs=runs)
    cactus = plot_cactus(runs, LIMIT, str(tmp_path / "c.png"), context=CONTEXT, top=10)
    plot = plot_strategies(st, str(tmp_path / "p.svg"), top=10)
    scatter = plot_scatter(runs, LIMIT, str(tmp_path / "s.svg"), context=CONTEXT)
    assert all(plot[n] == cactus[n] for n in plot) and all(scatter[n] == cactus[n] for n in scatter)
    assert len(set(list(cactus.values())[:7])) == 7  # the seven best: seven different colours
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def svg_texts(path) -> list[str]:
    root = ET.parse(path).getroot()
    return [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text]


@pytest.mark.needs("matplotlib")
def test_scatter_svg_has_labelled_axes_limits_and_the_unsolved_border(tmp_path):
    path = tmp_path / "scatter.svg"
    plot_scatter(many_runs(), LIMIT, str(path), context=CONTEXT, pairs=[("s0", "s9")])
    texts = svg_texts(path)
    assert {"s0: seconds (log)", "s9: seconds (log)", "s9 against s0", "limit 5 s", "unsolved"} <= set(texts)
    root = ET.parse(path).getroot()
    caption = next(e.text for e in root.iter() if e.tag.endswith("}description"))
    assert "unsolved on the border at 10 s" in caption and "Test CPU" in caption
    with pytest.raises(ValueError, match="no runs of nope"):
        plot_scatter(many_runs(), LIMIT, str(path), pairs=[("s0", "nope")])


def test_ranking_and_the_per_family_table(tmp_path):
    runs = many_runs()
    assert ranking(runs, LIMIT)[:2] == ["s0", "s1"] and ranking(runs, LIMIT)[-1] == "s9"
    families, rows = family_rows(runs, LIMIT)
    assert families == ["random", "torus"]
    s9 = next(r for r in rows if r[0] == "s9")
    # s9 timed out on torus 4x4 and did not run 6x6 and 8x8: all three stay, unsolved at 2 x the limit
    assert s9[1] == (3, 3, pytest.approx(0.1 * (4 + 6 + 8) / 3)) and s9[2] == (0, 3, 2 * LIMIT) and s9[3] == 3
    assert rows[-1][0] == "VBS"
    tex = tmp_path / "t.tex"
    write_table(runs, LIMIT, str(tex), context=CONTEXT)
    text = tex.read_text()
    assert "\\begin{tabular}{lrrrrr}" in text and "s9 & 3/3 & 0.600 & 0/3 & 10.000 & 3 \\\\" in text
    assert "not run after a time-out on a smaller instance or over the budget) = unsolved" in text
    assert "Test CPU" in text
    md = tmp_path / "t.md"
    write_table(runs, LIMIT, str(md))
    assert "| s0 | 3 of 3 | 0.060 | 3 of 3 | 0.060 | 6 |" in md.read_text()


@pytest.mark.parametrize("args, words", [
    (["--cactus", "c.eps"], "expected a file name ending in .png, .pdf, .svg"),
    (["--table", "t.xlsx"], "expected a file name ending in .tex, .md, .csv"),
    (["--pairs", "a:b"], "--pairs needs --scatter"),
    (["--scatter", "s.pdf", "--pairs", "a-b"], "expected pairs of strategies A:B"),
])
def test_figure_options_are_checked_in_one_line(args, words, capsys):
    try:
        code = main(["study", "--strategies", "gauss", "--families", "random", "--sizes", "4", *args])
    except SystemExit as exc:  # argparse's own check of the argument
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.splitlines()) == 1


@pytest.mark.needs("matplotlib", "pycryptosat")
def test_study_cli_writes_pdf_svg_and_table(tmp_path, capsys):
    pdf, svg, table = tmp_path / "c.pdf", tmp_path / "s.svg", tmp_path / "t.md"
    assert main(["study", "--strategies", "gauss,sat-xor", "--families", "random", "--sizes", "4", "--boards", "2",
                 "--in-process", "--cactus", str(pdf), "--scatter", str(svg), "--table", str(table)]) == 0
    capsys.readouterr()
    assert pdf_info(pdf.read_bytes())["Subject"].startswith("Cactus plot")
    assert "sat-xor against gauss" in svg_texts(svg) and "| VBS | 2 of 2 |" in table.read_text()


@pytest.mark.needs("matplotlib")
def test_a_family_the_budget_never_reached_has_no_panel_and_is_named(tmp_path):
    runs = [r for r in many_runs(3) if r.family == "random"]
    runs += [Run("torus", 4, 0, 0, f"s{k}", "not run", note="over budget") for k in range(3)]
    st = StrategyStudy(["s0", "s1", "s2"], ["random", "torus"], {"random": [4, 6, 8], "torus": [4]}, 1, LIMIT,
                       1.0, 0, runs=runs)
    path = tmp_path / "p.svg"
    plot_strategies(st, str(path))
    root = ET.parse(path).getroot()
    caption = next(e.text for e in root.iter() if e.tag.endswith("}description"))
    assert "not reached within the budget: torus" in caption
    titles = [t for t in svg_texts(path) if t.startswith(("random:", "torus:"))]
    assert titles and all(t.startswith("random:") for t in titles)
