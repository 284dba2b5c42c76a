"""Solver parameters as text (``--cpsat-params``, ``--cms-params``, ``--scip-params``, ...): read, checked, set.

A setting is ``name:value`` (OR-Tools' text format for CP-SAT's ``SatParameters``; SCIP's and HiGHS's
own parameter names for the mip backend), settings separated by spaces or commas; a name given twice
takes its last value.  Parameters that change the question asked (a gap limit, a stop after the first
solution, a time limit, which the backend sets from ``time_limit``) are refused, so an answer under any
accepted setting must still be the proven minimum; ``flipgame fuzz`` draws from each backend's list.

Sources: OR-Tools ``sat_parameters.proto``; ``cryptominisat5 --hhelp`` (names without ``--``); SCIP's
parameter list (scipopt.org, "SCIP Parameters");
HiGHS options (ergo-code.github.io/HiGHS, "Options").
"""

from __future__ import annotations

from flipgame.core.errors import OptionError

CPSAT_QUESTION = ("relative_gap_limit", "absolute_gap_limit", "stop_after_first_solution", "stop_after_presolve",
                  "max_time_in_seconds", "catch_sigint_signal", "num_workers", "num_search_workers",
                  "enumerate_all_solutions", "fill_tightened_domains_in_response", "stop_after_root_propagation",
                  "max_deterministic_time", "max_number_of_conflicts", "max_memory_in_mb", "solution_pool_size")
"""CP-SAT parameters that change the question or are set from another option (``workers``, ``time_limit``)."""
CPSAT_FUZZ = ("cp_model_presolve:false", "cp_model_probing_level:0", "cp_model_probing_level:2",
              "linearization_level:0", "linearization_level:2", "symmetry_level:0", "symmetry_level:4",
              "search_branching:FIXED_SEARCH", "search_branching:PORTFOLIO_SEARCH", "search_branching:LP_SEARCH",
              "search_branching:PSEUDO_COST_SEARCH", "use_sat_inprocessing:false", "optimize_with_core:true",
              "cp_model_use_sat_presolve:false", "add_lp_constraints_lazily:false", "random_seed:7",
              "use_optimization_hints:false", "find_multiple_cores:false")
"""CP-SAT settings ``flipgame fuzz`` draws (a subset per run): presolve, probing, LP relaxation, symmetry,
search branching, inprocessing, core-based optimisation."""
SCIP_QUESTION = ("limits/",)
"""SCIP parameters that stop before a proven minimum: every ``limits/`` one (the backend sets ``limits/time``)."""
SCIP_FUZZ = ("presolving/maxrounds:0", "presolving/donotaggr:true", "presolving/donotmultaggr:true",
             "separating/maxrounds:0", "separating/maxroundsroot:0", "heuristics/rounding/freq:-1",
             "propagating/maxrounds:0", "conflict/enable:false", "branching/relpscost/priority:-1000",
             "lp/initalgorithm:d", "lp/initalgorithm:p", "misc/allowstrongdualreds:false",
             "misc/allowweakdualreds:false", "randomization/randomseedshift:7")
"""SCIP settings ``flipgame fuzz`` draws: presolve and its aggregation (the 3x5 torus bug of
``tests/test_backends.py``), cuts, heuristics, propagation, conflict analysis, branching, LP algorithm."""
HIGHS_QUESTION = ("mip_rel_gap", "mip_abs_gap", "time_limit", "mip_max_nodes", "mip_max_leaves",
                  "mip_max_improving_sols", "objective_bound", "objective_target", "output_flag", "solution_file")
"""HiGHS options that stop before a proven minimum, or that the backend owns."""
HIGHS_FUZZ = ("presolve:off", "mip_heuristic_effort:0", "mip_heuristic_effort:0.3", "mip_detect_symmetry:false",
              "mip_pool_soft_limit:1", "random_seed:7", "simplex_strategy:4", "mip_lp_age_limit:1")
"""HiGHS settings ``flipgame fuzz`` draws: presolve, heuristics, symmetry detection, cut pool, simplex."""


CMS_QUESTION = ("maxtime", "maxconfl", "threads", "verb", "maxsol")
"""CryptoMiniSat options that stop early or belong to another option (``time_limit``)."""
CMS_FUZZ = ("autodisablegauss:0", "maxmatrixrows:10", "maxmatrixrows:100000", "maxmatrixcols:100000",
            "minmatrixrows:1", "gaussusefulcutoff:0", "xor:0", "maxxorsize:3", "maxxormat:10", "polar:rnd",
            "presimp:0", "sls:0", "bva:0", "occsimp:0", "intree:0", "distill:0")
"""CryptoMiniSat options ``flipgame fuzz`` draws: Gauss-Jordan elimination on or off and its matrix limits, XOR
recovery, polarity, and the inprocessing steps (CryptoMiniSat's bugs hid in the non-default ones)."""


def settings(text: str, what: str) -> list[tuple[str, str]]:
    """``name:value`` settings of ``text`` in order, as (name, value) text pairs; OptionError naming ``what``."""
    out = []
    for item in text.replace(",", " ").split():
        name, sep, value = item.partition(":")
        if not sep or not name or not value:
            raise OptionError(f"{what}: expected settings NAME:VALUE separated by spaces, got {item!r:.60}")
        out.append((name, value))
    return out


def refused(pairs: list[tuple[str, str]], question: tuple[str, ...], what: str) -> None:
    """OptionError if a setting changes the question asked (a gap, a stop, a limit the backend owns); a name
    ending in ``/`` in ``question`` refuses every parameter under it (SCIP's ``limits/``)."""
    bad = [name for name, _ in pairs if name in question or any(q.endswith("/") and name.startswith(q)
                                                                 for q in question)]
    if bad:
        raise OptionError(f"{what}: {bad[0]} changes the question asked (a proven minimum) or is set by "
                          f"another option; not taken")


def set_cpsat(parameters, text: str) -> None:
    """Set ``text``'s settings on a CP-SAT ``SatParameters`` object; OptionError on an unknown name or bad value."""
    what = "cpsat option params (--cpsat-params)"
    pairs = settings(text, what)
    refused(pairs, CPSAT_QUESTION, what)
    for name, value in pairs:
        if not hasattr(parameters, name):
            raise OptionError(f"{what}: CP-SAT has no parameter {name!r:.60} (see OR-Tools' sat_parameters.proto)")
        current = getattr(parameters, name)
        try:
            setattr(parameters, name, _typed_like(current, value))
        except (TypeError, ValueError, AttributeError):
            raise OptionError(f"{what}: {name} cannot take {value!r:.40}") from None


def _typed_like(current, value: str):
    """``value`` read as the type of ``current`` (bool, int, float, or one of an enum's names)."""
    if isinstance(current, bool):
        if value.lower() not in ("true", "false"):
            raise ValueError(value)
        return value.lower() == "true"
    if isinstance(current, int):
        return int(value)
    if isinstance(current, float):
        return float(value)
    return getattr(type(current), value)


def scip_settings(text: str) -> dict:
    """``text``'s settings as a dict for ``pyscipopt.Model.setParams`` (values typed); OptionError if bad."""
    what = "mip option scip_params (--scip-params)"
    pairs = settings(text, what)
    refused(pairs, SCIP_QUESTION, what)
    return {name: _scalar(value) for name, value in pairs}


def highs_settings(text: str) -> dict:
    """``text``'s settings as HiGHS options (values typed); OptionError if bad."""
    what = "mip option highs_params (--highs-params)"
    pairs = settings(text, what)
    refused(pairs, HIGHS_QUESTION, what)
    return {name: _scalar(value) for name, value in pairs}


def cms_options(text: str) -> dict:
    """``text``'s settings as ``pycryptosat.Solver(options=...)`` takes them (text values); OptionError if bad."""
    what = "sat option cms_params (--cms-params)"
    pairs = settings(text, what)
    refused(pairs, CMS_QUESTION, what)
    return dict(pairs)


def _scalar(value: str):
    """A bool, int, float or text from a setting's value (``true``/``false``, numbers; else the text)."""
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value
