"""Ask the solution questions by name: what a pointer points to, whether two may alias,
what points to an object.

INPUT is a solution file (``.npz`` written by ``solve -o``, or the paper's
text solution format) or anything ``solve`` reads, which is then solved
first (``--backend``). Nodes are named as the front end names them
(``main:%p``, ``@g``, ``*@g#1``, ``*f:%call``; see the README) or given as
ids (``#12``, or ``12`` where no node has that name): the paper's dumps and
solution files written before names were kept have ids only.

``--points-to NAME...``: the nodes each NAME may point to. ``--alias A B``
(repeatable): whether A and B may point to a common node, and which.
``--pointed-by OBJECT...``: the nodes whose set holds OBJECT. With ``--json``
the answers are one JSON object on stdout instead of text lines::

    {"input": ..., "nodes": N, "backend": ..., "points_to": [{"node", "id", "pointees"}],
     "alias": [{"a", "b", "may_alias", "common"}], "pointed_by": [{"object", "id", "pointers"}]}

An unknown name exits 2 with one error line (with the closest names).
"""

from __future__ import annotations

import argparse
import difflib
import json

from . import add_backend_argument, add_input_arguments, add_progress_argument

NAME = "query"
HELP = "answer points-to and alias questions by name (from a solution file or any input)"
SOLUTION_TEXT_SUFFIXES = (".txt", ".txt.gz")
#: At most this many names are compared with an unknown one to suggest the closest.
SUGGEST_FROM = 20_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, what="a solution (.npz from solve -o, or the paper's text format), or any "
                                     "input solve reads")
    parser.add_argument("--points-to", nargs="+", default=[], metavar="NAME",
                        help="print what each NAME may point to")
    parser.add_argument("--alias", nargs=2, action="append", default=[], metavar=("A", "B"),
                        help="print whether A and B may alias (may point to a common node); repeatable")
    parser.add_argument("--pointed-by", nargs="+", default=[], metavar="OBJECT",
                        help="print the nodes that may point to each OBJECT")
    parser.add_argument("--json", action="store_true", help="print the answers as one JSON object")
    add_backend_argument(parser, help="solver, when INPUT is not a solution (default: auto)")
    add_progress_argument(parser)


def run(args: argparse.Namespace) -> int:
    from constraints.errors import InputError

    from ..cli import ExitCode
    from .solve import solve_with

    if not (args.points_to or args.alias or args.pointed_by):
        raise InputError("nothing to ask: give --points-to NAME, --alias A B or --pointed-by OBJECT")
    if is_solution_file(args.input):
        from ..solution import Solution

        sol, backend = Solution.load(args.input), None
    else:
        from . import load_input

        cs = load_input(args)
        sol = solve_with(cs, args.backend, progress=not args.no_progress)
        backend = sol.stats.backend if sol.stats is not None else args.backend
    ids = {spec: _resolve(sol, spec, args.input) for spec in
           args.points_to + [s for pair in args.alias for s in pair] + args.pointed_by}
    answers = {
        "points_to": [{"node": spec, "id": ids[spec], "pointees": sol.points_to_names(ids[spec])}
                      for spec in args.points_to],
        "alias": [_alias(sol, a, b, ids[a], ids[b]) for a, b in args.alias],
        "pointed_by": [{"object": spec, "id": ids[spec],
                        "pointers": [sol.label(int(v)) for v in sol.pointed_by(ids[spec])]}
                       for spec in args.pointed_by],
    }
    if args.json:
        print(json.dumps({"input": args.input, "nodes": sol.n_nodes, "backend": backend, **answers}, indent=1))
        return ExitCode.OK
    for a in answers["points_to"]:
        print(f"{a['node']} points to {_listing(a['pointees'])}")
    for a in answers["alias"]:
        if a["may_alias"]:
            print(f"{a['a']} and {a['b']} may alias: both point to {_listing(a['common'])}")
        else:
            print(f"{a['a']} and {a['b']} do not alias")
    for a in answers["pointed_by"]:
        print(f"{a['object']} is pointed to by {_listing(a['pointers'])}")
    return ExitCode.OK


def is_solution_file(path: str) -> bool:
    """True for a solution ``.npz`` (by its ``format`` member) or a ``.txt``/``.txt.gz`` file that
    is not part of a paper dump (the paper's solution format)."""
    import os

    import numpy as np

    from constraints import paper_format

    from ..solution import SOLUTION_FORMAT

    if path.endswith(".npz"):
        try:
            with np.load(path, allow_pickle=False) as z:
                return "format" in z.files and str(z["format"]) == SOLUTION_FORMAT
        except (OSError, ValueError, EOFError):
            return False  # the constraint reader says what is wrong with it
    name = os.path.basename(path)
    in_dump = paper_format.is_paper_nodes_file(path) or any(
        f"_{stem}." in name for stem in ("constraints", "constraints_after_hcd", "hcd"))
    return path.endswith(SOLUTION_TEXT_SUFFIXES) and not in_dump


def _resolve(sol, spec: str, source: str) -> int:
    from constraints.errors import InputError

    try:
        return sol.node_id(spec)
    except KeyError:
        pass
    hint = ""
    if sol.names:
        prefix = spec.split(":", 1)[0] + ":" if ":" in spec else ""
        pool = [n for n in sol.names if n.startswith(prefix)][:SUGGEST_FROM] if prefix else sol.names[:SUGGEST_FROM]
        close = difflib.get_close_matches(spec, pool, n=3)
        hint = f"; closest: {', '.join(close)}" if close else ""
    elif spec.isdigit() or spec.startswith("#"):
        hint = f"; ids are 0 to {sol.n_nodes - 1}"
    else:
        hint = "; this solution has no names: give ids (#12)"
    raise InputError(f"no node {spec!r} ({sol.n_nodes:,} nodes{hint})", source)


def _alias(sol, a: str, b: str, ia: int, ib: int) -> dict:
    import numpy as np

    common = np.intersect1d(sol.points_to(ia), sol.points_to(ib), assume_unique=True)
    return {"a": a, "b": b, "may_alias": bool(common.size), "common": [sol.label(int(z)) for z in common]}


def _listing(names: list[str]) -> str:
    if not names:
        return "nothing"
    return f"{len(names):,}: {', '.join(names)}"
