"""Figures of the study for a paper: cactus and scatter plots in PDF, SVG and PNG, with a caption, labelled
axes and limits, one colour per strategy across figures, a top-N selection; the per-family table."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from flipgame.cli import main
from flipgame.study.compare import Run, StrategyStudy
from flipgame.study.family_table import family_rows, write_table
from flipgame.study.figures import OKABE_ITO, VBS_STYLE, Context, plot_cactus, plot_scatter, plot_strategies, ranking

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


@pytest.mark.needs("matplotlib")
def test_cactus_pdf_has_a_caption_with_the_limit_instances_and_machine(tmp_path):
    path = tmp_path / "fig.pdf"
    colours = plot_cactus(many_runs(), LIMIT, str(path), context=CONTEXT)
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    info = pdf_info(data)
    assert info["Title"] == "flipgame study: cactus plot"
    caption = info["Subject"]
    assert "the 7 best of 10 strategies (most solved, then PAR-2)" in caption
    assert "4 instances (2 not run by some strategy left out)" in caption  # torus 6x6 and 8x8
    assert "time limit 5 s per run, killed at 6 s" in caption and "Machine: Test CPU, 2 cores, 4 GiB" in caption
    assert list(colours) == [f"s{k}" for k in range(7)] + ["VBS"]  # the top 7 by solved then PAR-2, and the VBS
    assert colours["VBS"] == VBS_STYLE["color"] and list(colours.values())[:7] == list(OKABE_ITO)


@pytest.mark.needs("matplotlib")
def test_the_cactus_pdf_page_shows_axes_limits_legend_and_caption(tmp_path):
    """The page itself, read back by a PDF library: what a reader of the paper sees, not only the metadata."""
    from pypdf import PdfReader

    path = tmp_path / "fig.pdf"
    plot_cactus(many_runs(), LIMIT, str(path), context=CONTEXT)
    pages = PdfReader(path).pages
    assert len(pages) == 1
    words = " ".join(pages[0].extract_text().split())
    panels = ["all families (4 instances)", "random (3 instances)"]  # torus has 1 scored instance: no panel
    labels = ["instances solved", "seconds per instance (log)", "time limit 5 s"]
    drawn, caption = words.split("Cactus plot: ")
    assert all(drawn.count(text) == len(panels) for text in labels), words  # each panel's axes and limit line
    assert all(text in drawn for text in panels) and "time limit 5 s per run, killed at 6 s" in caption
    assert all(text in caption for text in ["flipgame study: cactus plot", *(f"s{k}" for k in range(7)), "VBS",
                                            "Test CPU, 2 cores, 4 GiB"])  # the legend follows the caption here
    assert "s7" not in words and "torus (" not in words  # beyond the top 7; a family of fewer than 3 instances


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
    assert {"s0: seconds (log)", "s9: seconds (log)", "s9 against s0", "time limit 5 s", "unsolved"} <= set(texts)
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
    assert s9[1] == (3, 3, pytest.approx(0.1 * (4 + 6 + 8) / 3)) and s9[2] == (0, 1, 2 * LIMIT) and s9[3] == 3
    assert rows[-1][0] == "VBS"
    tex = tmp_path / "t.tex"
    write_table(runs, LIMIT, str(tex), context=CONTEXT)
    text = tex.read_text()
    assert "\\begin{tabular}{lrrrrr}" in text and "s9 & 3/3 & 0.600 & 0/1 & 10.000 & 3 \\\\" in text
    assert "torus: 2 left out (torus/6x6/0, torus/8x8/0)" in text and "Test CPU" in text
    md = tmp_path / "t.md"
    write_table(runs, LIMIT, str(md))
    assert "| s0 | 3 of 3 | 0.060 | 1 of 1 | 0.040 | 4 |" in md.read_text()


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
