"""Figure 3 and Sec. 6.2: do trained two-layer models attend as Theorems 3 and 5's constructions
do? The per-seed scores of a trained ensemble beside the construction's, read by
``checks.training.figure_3``. Used on live trainings only (the sweeps never import it)."""
from __future__ import annotations

from ... import validate
from ...tasks import InContextQA, TemplateMatching
from . import constructions
from .training import copy_match_scores, parse_scores


def figure_3_scores(qa_run, qa_task: InContextQA, qa_probe, tm_run, tm_task: TemplateMatching,
                    tm_probe) -> tuple[dict, dict]:
    """Figure 3's scores of every trained seed beside Theorems 3 and 5's constructions:
    ``(copy_match, parse)``, each ``{"trained": [one dict per seed], "constructed": dict}``, the
    arguments of ``checks.training.figure_3``. ``qa_run``/``tm_run``: two-layer runs
    (:class:`lib.train.Run`) on in-context QA and template matching; the probes are batches of
    each (:func:`.training.copy_match_scores`, :func:`.training.parse_scores`)."""
    validate.instance("figure_3_scores", "qa_task", qa_task, InContextQA)
    validate.instance("figure_3_scores", "tm_task", tm_task, TemplateMatching)
    copy_match = {"trained": [copy_match_scores(qa_run.model(i), qa_task, qa_probe) for i in range(qa_run.K)],
                  "constructed": copy_match_scores(constructions.in_context_qa(qa_task), qa_task, qa_probe)}
    parse = {"trained": [parse_scores(tm_run.model(i), tm_probe) for i in range(tm_run.K)],
             "constructed": parse_scores(constructions.template_matching(tm_task), tm_probe)}
    return copy_match, parse
