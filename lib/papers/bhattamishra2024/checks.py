"""The checks behind every claim the separation chapters record (Bhattamishra et al. 2024), one
function per claim.

A construction or lower-bound check takes the tables the chapter computes with :mod:`.analysis`
(at the sizes the chapter states); a trained check takes the stored results of :mod:`.sweeps`
and compares the config they ran with against the paper's setup (:mod:`.setup`). Each returns a
:class:`lib.claims.Check`; a chapter records it with one line, ``record(checks.theorem_1(thm1))``,
and ``tests/test_bhattamishra2024_checks.py`` re-derives every committed verdict.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import claims, stats, validate
from . import setup
from .analysis import equality_seed_table, protocol_tables, seed_table, width_table


def _check(ref: str, label: str, statement: str, paper_value: str, ours: str, passed: bool, partly: bool = False,
           **more):
    return claims.check(paper="bhattamishra2024", ref=ref, label=label, statement=statement, paper_value=paper_value,
                        ours=ours, passed=bool(passed), partly=bool(partly), **more)


def _inputs(owner: str, *args) -> None:
    """Each ``(name, value, kind)``: a non-empty DataFrame (``"T"``; a verdict on an empty table
    would pass vacuously), a dict (``"D"``) or a stored :class:`lib.results.Result` (``"R"``)."""
    from ...results import Result

    for name, value, kind in args:
        validate.instance(owner, name, value, {"T": pd.DataFrame, "D": dict, "R": Result}[kind])
        if kind == "T" and value.empty:
            validate.fail(owner, name, "a non-empty table (a check on no rows passes vacuously)", "an empty DataFrame")


def _join(values, fmt: str = "{}") -> str:
    return ", ".join(fmt.format(v) for v in values)


# ----------------------------------------------------------------------------- Lemmas 2, 3, Corollary 8.1
def _lemma_2_tables(owner: str, kmins, tails) -> None:
    """Both tables are DataFrames, and ``kmins`` has at least 2 distinct N (the growth test and
    the fitted line need two points)."""
    validate.instance(owner, "kmins", kmins, pd.DataFrame)
    validate.instance(owner, "tails", tails, pd.DataFrame)
    if kmins["N"].nunique() < 2 or len(kmins) < 2:
        validate.fail(owner, "kmins", "a k_min table with at least 2 distinct N (a line has two parameters)",
                      f"N = {list(kmins['N'])}")


def _lemma_2_holds(kmins, tails) -> bool:
    """Measured tails under Hoeffding's bound, k_min under the lemma's width, and the last fourfold
    step of N adding less than all the steps before it (growth in log N)."""
    k = kmins["k_min (thr 1/4)"]
    log_growth = k.iloc[-1] - k.iloc[-2] < k.iloc[-2]
    return bool((tails["measured P(|<T_i,T_j>| >= γ)"] <= tails["bound 2 exp(-kγ²/4)"]).all()
                and (k <= kmins["Lemma 2 width (γ = 1/4)"]).all() and log_growth)


def lemma_2(kmins, tails):
    """Lemma 2 (App. C.2): N sign vectors are gamma-orthogonal at k = O(log N / gamma^2). Passes when
    every measured tail is under 2 exp(-k gamma^2 / 4), every k_min (threshold 1/4) under the
    lemma's width (8/gamma^2) ln 2N, and k_min grows in log N (the last fourfold step of N adds
    less than everything before it). ``kmins``: :func:`.analysis.k_min_table`; ``tails``:
    :func:`.analysis.tail_table`."""
    _lemma_2_tables("lemma_2", kmins, tails)
    slope = np.polyfit(np.log(kmins["N"]), kmins["k_min (thr 1/4)"], 1)[0]
    return _check("Lemma 2", "sep-lemma2",
                  "N sign vectors in k = O(log N / γ²) dimensions are γ-orthogonal; Hoeffding tail 2exp(-kγ²/4)",
                  "k = (8/γ²) ln 2N suffices (with prob. >= 1/2)",
                  f"k_min at threshold 1/4 for N = {_join(kmins['N'])}: {_join(kmins['k_min (thr 1/4)'])} "
                  f"(slope {slope:.0f} per unit of ln N); measured tails below the bound", _lemma_2_holds(kmins, tails))


def corollary_8_1(kmins, tails):
    """Corollary 8.1 (App. C.2): N vectors of +-1/sqrt(k) entries with off-diagonals <= 1/4 exist at
    k = O(log N); the same evidence and test as :func:`lemma_2`."""
    _lemma_2_tables("corollary_8_1", kmins, tails)
    return _check("Corollary 8.1", "sep-lemma2",
                  "N vectors in O(log N) dimensions with entries ±1/sqrt(k), off-diagonals <= 1/4 (diagonal 1)",
                  "k = O(log N)", f"found at k = {_join(kmins['k_min (thr 1/4)'])} for N = {_join(kmins['N'])} "
                  "(two draws each)", _lemma_2_holds(kmins, tails))


def lemma_3(jl_map):
    """Lemma 3 (App. C.2, Johnson-Lindenstrauss with a sign matrix): every worst distortion is
    under eps(k) = sqrt(8 ln(2|Q|)/k) and the distortion falls as k grows. ``jl_map``:
    :func:`.analysis.jl_map_table`."""
    _inputs("lemma_3", ("jl_map", jl_map, "T"))
    worst = jl_map["largest |<Ax,Ay> - <x,y>|"]
    return _check("Lemma 3", "sep-lemma2",
                  "a random ±1/sqrt(k) linear map preserves the inner products of |Q| unit vectors within ε "
                  "for k = O(log|Q| / ε²)", "k = O(log|Q|/ε²)",
                  f"200 unit vectors of R^512: worst distortion {_join(worst, '{:.3f}')} at k = "
                  f"{jl_map['k'].iloc[0]} ... {jl_map['k'].iloc[-1]}, under sqrt(8 ln(2|Q|)/k) each time",
                  (worst <= jl_map["ε(k)"]).all() and worst.is_monotonic_decreasing)


# ----------------------------------------------------------------------------- Theorems 1, 6, 13, 7
def theorem_1(thm1):
    """Theorem 1 (Sec. 4, App. C.2): 100% on every worst-case input in float64, float32 and float16
    and on the random inputs, at least 3/4 of the attention on the target, and a width below N
    once N >= 1024. ``thm1``: :func:`.analysis.theorem_1_table`."""
    _inputs("theorem_1", ("thm1", thm1, "T"))
    exact = thm1[[c for c in thm1.columns if c.startswith("worst cases") or c == "random inputs"]]
    largest = thm1.iloc[-1]
    passed = ((exact == 1.0).all().all() and (thm1["least weight on p"] >= 0.75).all()
              and (largest["N"] < 1024 or largest["width d"] < largest["N"]))
    return _check("Theorem 1", "sep-thm1",
                  "a 1-layer transformer of width O(log N) does index lookup for every length up to N",
                  "exact, width O(log N)",
                  f"100% on worst-case and random inputs at N = {_join(thm1['N'])} (width {_join(thm1['width d'])}), "
                  f"in float64, float32 and float16; >= {thm1['least weight on p'].min():.3f} of the attention on the "
                  "target", passed)


def theorem_6(thm6):
    """Theorem 6 (Sec. 5, App. F.2): no error on any string or sample (the one-flip pairs included)
    in float64, and 100% in float32. ``thm6``: :func:`.analysis.theorem_6_table`."""
    _inputs("theorem_6", ("thm6", thm6, "T"))
    every = thm6[thm6["inputs"] == "all 2^N"].iloc[0]
    return _check("Theorem 6", "sep-thm6",
                  "a 2-layer transformer of width O(log N) computes equality of the two halves", "exact, width O(log N)",
                  f"0 errors (all {every['examples']} strings at N = {every['N']}; samples with "
                  f"{thm6['one-flip pairs'].sum()} one-flip pairs up to N = {thm6['N'].max()}), widths "
                  f"{_join(thm6['width d'])}; float32 too",
                  (thm6["errors"] == 0).all() and (thm6["float32 accuracy"] == 1.0).all())


def theorem_13(thm13):
    """Theorem 13 (App. G): 100% for DISJ (g = AND) and INEQ (g = XOR) on every input set of
    :func:`.analysis.theorem_13_table`."""
    _inputs("theorem_13", ("thm13", thm13, "T"))
    return _check("Theorem 13", "sep-thm13",
                  "a 2-layer transformer with k heads of width O(log N) computes any threshold of k-sparse features "
                  "(disjointness and equality among them)", "exact, width O(log N), k heads",
                  f"100% for DISJ (g = AND) and INEQ (g = XOR) with 2 heads: all strings at N = {thm13['N'].min()}, "
                  f"samples and 0-or-1-common pairs up to N = {thm13['N'].max()} (width {thm13['width d'].max()})",
                  (thm13["accuracy"] == 1.0).all())


def _bounded(values, factor: float = 1.5) -> bool:
    """The largest of ``values`` within ``factor`` of the smallest (k / ln N bounded over the N tried)."""
    return bool(max(values) <= factor * min(values))


def theorem_7(exact_nn, sign, widths, growth):
    """Theorem 7 (Sec. 5, App. F.3): width O(log N) for margins gamma >= N^-c. The construction
    needs addresses within gamma/100 of orthogonal, so its width is O(log N / gamma^2). The weaker
    form (what holds): no error with orthogonal addresses; with random sign addresses the paper's
    c1 = 10 errs at k = 256, c1 = 3 improves from the narrowest to the widest k, is no worse than
    c1 = 10 there and is exact at k = 4096 when tried; and at a fixed margin the width the proof
    needs, k / ln N, stays within a factor 1.5 over the N of ``widths`` (O(log N)). The full check
    also asks for k / ln N bounded when gamma = N^-c shrinks with N, which fails: there k grows as
    N^(2c) log N. ``exact_nn``: :func:`.analysis.theorem_7_exact_table`; ``sign``:
    :func:`.analysis.theorem_7_sign_address_table`; ``widths``: :func:`.analysis.theorem_7_width_table`;
    ``growth``: :func:`.analysis.theorem_7_growth_table` (evidence: the error at a fixed width as N grows)."""
    _inputs("theorem_7", ("exact_nn", exact_nn, "T"), ("sign", sign, "T"), ("widths", widths, "T"),
            ("growth", growth, "T"))
    err = {(r["c1"], r["address width k"]): r["error rate"] for r in sign.to_dict("records")}
    ks = sorted({k for _, k in err})
    construction = bool((exact_nn["errors"] == 0).all() and err[(10.0, 256)] > 0
                        and err[(3.0, ks[-1])] < err[(3.0, ks[0])] and err[(3.0, ks[-1])] <= err[(10.0, ks[-1])]
                        and (ks[-1] < 4096 or err[(3.0, 4096)] == 0.0))
    fixed_col = "k / ln N (γ = 1/4)"
    shrink_col = next(col for col in widths.columns if col.startswith("k / ln N (γ = N^"))
    fixed_ok, shrink_ok = _bounded(widths[fixed_col]), _bounded(widths[shrink_col])
    n0, n1 = widths["N"].iloc[0], widths["N"].iloc[-1]
    return _check("Theorem 7", "sep-thm7",
                  "a 2-layer transformer of width O(log N) implements the nearest-neighbour rule (MQAR included) "
                  "for margins γ >= N^-c", "exact, width O(log N)",
                  f"0 errors with orthogonal addresses (MQAR and unit vectors with margin >= 0.01); with random sign "
                  f"addresses at margin 1/4, error at k = {_join(ks)}: c1 = 3 "
                  f"{_join((err[(3.0, k)] for k in ks), '{:.3f}')}, "
                  f"c1 = 10 {_join((err[(10.0, k)] for k in ks), '{:.3f}')}; at k = {growth['address width k'].iloc[0]} "
                  f"(c1 = 3), error at {_join(growth['tokens'])} tokens: {_join(growth['error rate'], '{:.3f}')}; "
                  "the width the proof needs "
                  f"(addresses within γ/100 of orthogonal) from N = {n0} to {n1}: k / ln N "
                  f"{widths[fixed_col].iloc[0]:.3g} to {widths[fixed_col].iloc[-1]:.3g} at γ = 1/4 (O(log N / γ²)), "
                  f"{widths[shrink_col].iloc[0]:.3g} to {widths[shrink_col].iloc[-1]:.3g} at {shrink_col[10:-1]} "
                  "(not O(log N))",
                  construction and fixed_ok and shrink_ok, partly=construction and fixed_ok,
                  note="erratum: the construction needs addresses within γ/100 of orthogonal, width O(log N / γ²); "
                       "that is O(log N) only for a margin bounded below, not for γ = N^-c; "
                       "fixed: +3 (text also +2), label key -6 (text -2.3), layer-2 query T_s/sqrt(k)")


# ----------------------------------------------------------------------------- the Dyck RNN
def dyck_rnn(study):
    """Sec. 4.1 (the constant-size RNN the paper cites for Dyck-(2,2)): no error on every short
    string, 100% on the long ones in float64 and float32, 7 live states, and 2^(N-1) members for
    every even N <= 400. ``study``: :func:`.analysis.dyck_rnn_study`."""
    _inputs("dyck_rnn", ("study", study, "D"))
    s = study
    passed = (s["errors"] == 0 and s["long accuracy"] == 1.0 and s["long accuracy float32"] == 1.0
              and s["live states"] == 7 and s["member counts 2^(N-1)"])
    return _check("Sec. 4.1 (constant-size RNN for Dyck-(2,2))", "sep-dyck-rnn",
                  "a constant-size (ReLU) RNN recognizes Dyck-(2,2); the automaton has 7 live states; "
                  "2^(N-1) members of length N", "constant size (cited: Hewitt et al. 2020, Bhattamishra et al. 2020)",
                  f"{s['units']}-unit ReLU RNN: {s['errors']} errors on all {s['strings']:,} strings of length <= "
                  f"{s['max length']} and {s['long accuracy']:.0%} on {s['long strings']} generated strings of length 400 "
                  f"(float64 and float32); member counts 2^(N-1) for every even N <= 400", passed)


def theorem_2_dyck_rnn(split):
    """Theorem 2 (Sec. 4.1) with the Dyck RNN: Bob, starting from Alice's state, answers as the RNN
    does on every string; every message sent is one-hot (so it is one of ``units`` values, log2
    units bits); and each message determines the state Dyck-(2,2)'s automaton reaches on the same
    prefix (no message shared by two automaton states, as many distinct messages as (state,
    message) pairs; the message may refine the state). ``split``: :func:`.analysis.dyck_split_protocol`."""
    _inputs("theorem_2_dyck_rnn", ("split", split, "D"))
    s = split
    refines = s["state-message pairs"] == s["states sent"] >= s["automaton states reached"]
    return _check("Theorem 2 (the Dyck RNN as a protocol)", "sep-dyck-rnn",
                  "an RNN with an mp-bit state gives a one-way protocol of mp bits for any prefix/suffix split",
                  "exact protocol",
                  f"Dyck RNN split after {s['cut']} of {s['length']} symbols: Bob's output equals the RNN's on "
                  f"{s['agree']}/{s['strings']} strings; {s['one-hot messages']}/{s['strings']} messages one-hot "
                  f"({s['states sent']} distinct, {int(np.log2(s['units']))} bits suffice), each determining the "
                  f"automaton's state ({s['automaton states reached']} reached, live or dead)",
                  s["agree"] == s["strings"] and s["one-hot messages"] == s["strings"] and refines)


# ----------------------------------------------------------------------------- lower bounds
def _theorem_4_holds(study) -> bool:
    """The protocol is exact (difference 0), every message fits the width it declares, and the bits
    counted from the messages equal the step-by-step count d p + H(4(m + 1)p + 2 ceil(log2 N)),
    fewer than the input's."""
    return bool(study["largest difference"] == 0.0 and study["messages fit"]
                and study["bits exchanged"] == [study["formula"]] and study["formula"] < study["input bits"])


PAPER_BITS = "paper's 3m(p + log N)H"  # the key of theorem_4_study's paper count


def _paper_count_holds(study) -> bool:
    """The bits sent are within the paper's count 3m(p + log N)H (App. D's total)."""
    return bool(max(study["bits exchanged"]) <= study[PAPER_BITS])


_THM4_ERRATUM = ("erratum: App. D's total 3m(p + log N)H is below its own steps: the query (dp), 2p for the maxima, "
                 "2(p + log N) for the sums and 4mp for the weighted value sums (step 4 alone exceeds 3m(p + log N) "
                 "once p >= 3 log N); the protocol sends dp + H(4(m + 1)p + 2 ceil(log2 N)) bits, at most "
                 "(5m + 4)H(p + log N) with the paper's d = m")


def theorem_4(study, sizes):
    """Theorem 4 (Sec. 4.2, App. D): at every size of ``sizes`` (:func:`.analysis.theorem_4_size_table`)
    and in ``study`` (:func:`.analysis.theorem_4_study`), the protocol's output equals the layer's
    exactly, every message fits its declared width, and the bits counted from the messages equal
    the step-by-step count dp + H(4(m + 1)p + 2 ceil(log2 N)) and (where d = m) stay within
    (5m + 4)H(p + log N): that is the weaker form, O(mH(p + log N)) bits. The full check also asks
    for the paper's count, at most 3m(p + log N)H bits, which its own step 4 exceeds (an erratum)."""
    _inputs("theorem_4", ("study", study, "D"), ("sizes", sizes, "T"))
    s = study
    square = sizes[sizes["d"] == sizes["m"]]
    exact = bool(_theorem_4_holds(s) and (sizes["largest difference"] == 0.0).all() and sizes["messages fit"].all()
                 and (sizes["bits sent (max)"] == sizes["dp + H(4(m+1)p + 2⌈log N⌉)"]).all()
                 and (sizes["bits sent (min)"] == sizes["dp + H(4(m+1)p + 2⌈log N⌉)"]).all()
                 and (square["bits sent (max)"] <= square["(5m+4)H(p + log N)"]).all())
    paper = _paper_count_holds(s) and bool((sizes["bits sent (max)"] <= sizes["paper 3m(p + log N)H"]).all())
    return _check("Theorem 4", "sep-thm4",
                  "for any partition of the positions, a 1-layer H-head transformer is computed by a protocol "
                  "of at most 3m(p + log N)H bits, O(mH(p + log N))", "exact protocol, 3m(p + log N)H bits",
                  f"identical output (difference 0) for {s['partitions']} random partitions at N = {s['N']}, H = {s['H']}, "
                  f"d = {s['d']}, m = {s['m']}, p = {s['p']}: {max(s['bits exchanged']):,} bits counted from the messages "
                  f"(= dp + H(4(m + 1)p + 2⌈log2 N⌉)) against the paper's {s[PAPER_BITS]:,.0f} and "
                  f"{s['input bits']:,} for the input; the same at N = {_join(sizes['N'])} "
                  f"({_join(sizes['bits sent (max)'], '{:,}')} bits sent, paper "
                  f"{_join(sizes['paper 3m(p + log N)H'], '{:,.0f}')})",
                  exact and paper, partly=exact, note=_THM4_ERRATUM)


def _lemma_1_holds(ranks) -> bool:
    odd, prefix = ranks[ranks["split"] == "odd_even"], ranks[ranks["split"] == "prefix_suffix"]
    return bool((odd["rank"] == odd["2^(N-1)"]).all() and (odd["most 1s in a row"] == 1).all()
                and (prefix["rank"] <= 7).all())


def lemma_1(ranks):
    """Lemma 1 (Sec. 4.2, App. E): under the odd/even split the rank is 2^(N-1) with at most one
    member per row (a fooling set); under the prefix/suffix split the rank is at most 7 (the
    automaton's live states). ``ranks``: :func:`.analysis.dyck_rank_table`."""
    _inputs("lemma_1", ("ranks", ranks, "T"))
    odd, prefix = ranks[ranks["split"] == "odd_even"], ranks[ranks["split"] == "prefix_suffix"]
    return _check("Lemma 1", "sep-lemma1",
                  "with odd/even positions split, Dyck-(2,2) membership needs >= N-1 bits (a fooling set of size 2^(N-1))",
                  ">= N - 1 bits", f"odd/even rank = 2^(N-1) and at most one member per row for N = {_join(odd['N'])}; "
                  f"prefix/suffix rank <= {prefix['rank'].max()}", _lemma_1_holds(ranks))


def theorem_5(ranks, study):
    """Theorem 5 (= Theorem 10): mH >= (N - 1)/(3(p + log N)), from Theorem 4 and Lemma 1. The
    ingredients are checked exactly (the fooling set and ranks; the protocol and its bit count);
    the stated constant 3 needs Theorem 4's count, which the protocol exceeds, so the full check
    fails and the weaker form (Lemma 1 and the exact protocol: (5m + 4)H(p + log N) >= N - 1 with
    d = m, mH >= (N - 1)/(9(p + log N))) is what holds."""
    _inputs("theorem_5", ("ranks", ranks, "T"), ("study", study, "D"))
    both = _lemma_1_holds(ranks) and _theorem_4_holds(study)
    return _check("Theorem 5 (restated as Theorem 10)", "sep-lemma1",
                  "a 1-layer transformer recognizing Dyck-(2,2) has mH >= (N-1)/(3(p + log N))",
                  "follows from Theorem 4 and Lemma 1",
                  "both ingredients hold exactly here (the fooling set and ranks; the protocol, with "
                  f"{max(study['bits exchanged']):,} bits where the paper counts {study[PAPER_BITS]:,.0f}), "
                  "so the bound holds with the protocol's true count: mp + H(4(m + 1)p + 2 log N) >= N - 1, "
                  "mH >= (N - 1)/(9(p + log N)); the implied widths are plotted below",
                  both and _paper_count_holds(study), partly=both,
                  note="erratum: the constant 3 comes from Theorem 4's count 3m(p + log N)H, which the protocol's own "
                       "steps exceed; the argument gives (5m + 4)H(p + log N) >= N - 1 (d = m)")


def theorem_11(classes, automaton):
    """Theorem 11 and Lemma 4 (App. G): exactly 2^(N/2) Myhill-Nerode classes of INEQ after N/2 bits
    (so an automaton for INEQ needs 2^(N/2) states), and Lemma 4's step run on a real RNN: the
    automaton built from the Dyck RNN's reachable states has consistent labels, agrees with the RNN
    on every string tried, has no more states than the RNN has distinct states and minimises to
    Dyck-(2,2)'s minimal automaton (so the RNN's state carries at least log2 of that many values).
    ``classes``: :func:`.analysis.residual_table`; ``automaton``: :func:`.analysis.rnn_automaton_study`."""
    _inputs("theorem_11", ("classes", classes, "T"), ("automaton", automaton, "D"))
    a = automaton
    lemma_4 = (a["labels consistent"] and a["agrees with the RNN"]
               and a["minimal DFA states"] == a["minimised states"] <= a["RNN states reached"])
    return _check("Theorem 11 and Lemma 4", "sep-thm11",
                  "a recurrent model computing INEQ on {0,1}^N needs mp >= N/2 (an automaton needs 2^(N/2) states; "
                  "an RNN with an mp-bit state is an automaton with at most 2^(mp) states)",
                  "2^(N/2) states", f"exactly 2^(N/2) residual classes for N = {_join(classes['N'])}; Lemma 4's "
                  f"automaton built from the {a['units']}-unit Dyck RNN: {a['RNN states reached']} reachable states, "
                  f"equal to the RNN on all {a['strings']:,} strings tried, minimising to {a['minimised states']} states "
                  f"(Dyck-(2,2)'s minimal automaton: {a['minimal DFA states']})",
                  (classes["residual classes after N/2 bits"] == classes["2^(N/2)"]).all() and lemma_4)


def theorem_12(ranks, study):
    """Theorem 12 (App. G): EQ's communication matrix has full rank 2^(N/2) (Fact 2) and Theorem 4's
    protocol is exact. ``ranks``: :func:`.analysis.equality_rank_table`."""
    _inputs("theorem_12", ("ranks", ranks, "T"), ("study", study, "D"))
    return _check("Theorem 12", "sep-thm12", "a 1-layer transformer computing EQ on {0,1}^N has mpH = Ω(N)",
                  "Theorem 4 + Fact 2 (EQ needs N/2 bits)",
                  f"EQ's matrix, [x_A = x_B] evaluated on every pair of halves, has rank 2^(N/2) "
                  f"(DISJ's {_join(ranks['DISJ rank'])}, 2^(N/2) - 1: the empty set's row "
                  f"is zero) for N = {_join(ranks['N'])}, and the protocol of Theorem 4 is exact",
                  (ranks["EQ rank"] == ranks["2^(N/2)"]).all() and _theorem_4_holds(study))


def lemma_5(partitions):
    """Lemma 5 and Corollary 13.1 (App. G): for each random balanced partition, Theorem 6's model with
    that pairing is right on every input. ``partitions``: :func:`.analysis.partition_table`."""
    _inputs("lemma_5", ("partitions", partitions, "T"))
    return _check("Lemma 5 and Corollary 13.1", "sep-thm12",
                  "for every balanced partition a 2-layer log-width transformer computes a function needing N/2 bits "
                  "across it, so no Theorem-4-style protocol exists for 2 layers", "exists for every partition",
                  f"Theorem 6's model with the pairing of {len(partitions)} random balanced partitions: 100% on all "
                  f"{partitions['inputs'].iloc[0]} inputs at N = {partitions['N'].iloc[0]}",
                  (partitions["accuracy"] == 1.0).all())


def theorem_3(protocol, linear):
    """Theorems 3 and 2 (Sec. 4.1, App. C.1) with the stored ``lstm_protocol`` result: every message
    shorter than N bits stays under the information bound 1 - h^-1(1 - b/N), a full state that
    reaches 100% takes all 2^N values, and linear recurrences leave error exactly (N - rank)/(4N),
    zero iff m >= N; the full state must also reach 95% (else the claim holds only in part). A full
    state at 100% with fewer than 2^N distinct messages contradicts the theorem (or its count): not
    reproduced.
    ``linear``: :func:`.analysis.linear_state_table`."""
    _inputs("theorem_3", ("protocol", protocol, "R"), ("linear", linear, "T"))
    full, short = protocol_tables(protocol)
    n_bits, arch = protocol.config["length"], protocol.config["arch"]
    exact_state = full[full["bits_per_number"].isna()].iloc[0]
    linear_ok = bool(np.allclose(linear["MSE per bit"], linear["(N - rank)/(4N)"], atol=1e-9)
                     and ((linear["MSE per bit"] > 1e-6) == (linear["state width m"] < linear["N"])).all())
    under_bound = bool((short["accuracy"] <= short["bound"] + 1e-12).all())
    injective = bool(exact_state["accuracy"] < 1.0 or exact_state["distinct_messages"] == 2 ** n_bits)
    return _check("Theorem 3 and Theorem 2", "sep-linear-rnn",
                  "a recurrent model doing index lookup at length N needs a state of >= N bits: its state is a "
                  "one-way message, and a message of b < N bits caps the accuracy at 1 - h^-1(1 - b/N)", "m >= N/p",
                  f"trained {arch} at N = {n_bits}: full state {exact_state['accuracy']:.3f} over all "
                  f"{n_bits * 2 ** n_bits:,} instances with {int(exact_state['distinct_messages']):,} distinct messages "
                  f"(2^N = {2 ** n_bits:,}){'' if injective else ', fewer than 2^N although it reaches 100%'}"
                  f"{'' if exact_state['accuracy'] >= 0.95 else ', below 0.95'}; "
                  f"{'every message of b < N bits under' if under_bound else 'a message of b < N bits ABOVE'} the "
                  f"bound (best {short['accuracy'].max():.3f}); linear recurrences: "
                  + ("error (N - rank)/(4N) exactly, zero iff m >= N" if linear_ok
                     else "error NOT (N - rank)/(4N), or not zero iff m >= N"),
                  linear_ok and under_bound and injective and exact_state["accuracy"] >= 0.95,
                  partly=linear_ok and under_bound and injective, results=protocol)


def theorem_8(reductions):
    """Theorem 8 and Proposition 9 (Sec. 5, App. F.4): a recurrent model doing nearest neighbour (or
    associative recall) at length N needs m >= N/(2p) (or N/p). What is run is the reductions'
    protocol, with Theorem 7's transformer as the solver: Bob recovers every bit of every Alice
    input and answers DISJ on every pair, and the recovered inputs are pairwise distinct, so any
    one-way message carrying them takes 2^n values. The lower bound itself then rests on the
    communication complexity of INDEX and DISJ, which is cited, not computed, and no recurrent model
    is run as the solver: the full check therefore fails and the reductions' correctness is the
    weaker form. ``reductions``: :func:`.analysis.reduction_table`."""
    _inputs("theorem_8", ("reductions", reductions, "T"))
    small, large = reductions.iloc[0], reductions.iloc[1]
    reductions_run = bool((reductions["all bits recovered"] == reductions["Alice inputs"]).all()
                          and (reductions["DISJ right"] == reductions["DISJ pairs"]).all()
                          and small["Alice inputs"] == 2 ** small["n keys"])
    return _check("Theorem 8 and Proposition 9", "sep-thm8",
                  "a recurrent model doing nearest neighbour (or associative recall) at length N needs m >= N/(2p) "
                  "(or N/p): the reductions from DISJ and INDEX", "reductions (proofs)",
                  f"the reductions' protocol run with Theorem 7's transformer as the solver: Bob recovers all of "
                  f"Alice's bits for all {small['Alice inputs']} inputs at n = {small['n keys']} and "
                  f"{large['Alice inputs']} random inputs at n = {large['n keys']}, and answers DISJ on all "
                  f"{small['DISJ pairs']} pairs at n = {small['n keys']}; the bound on a recurrent model's state is "
                  "not run (it cites INDEX's and DISJ's communication complexity)",
                  False, partly=reductions_run)


# ----------------------------------------------------------------------------- training (Figures 2 and 4)
def _seeds_at(table: pd.DataFrame, model: str, n: int) -> list[float]:
    rows = table[(table["model"] == model) & (table["N"] == n)]
    if len(rows) != 1:
        raise ValueError(f"checks: {len(rows)} rows of {model} at N = {n}, expected one")
    return list(rows["per seed"].iloc[0])


def figure_2ab(idx, idx_ssm):
    """Figure 2a-b (Sec. 6), decided over seeds (:mod:`lib.stats`, each model at its best learning
    rate). The separation: the 1-layer transformer is near-perfect at the longest length (its
    interval above 0.9), and every recurrent model, at the longest length it ran, fails (its
    interval below 0.6) and is beaten by the transformer at that length (Welch). The claim in
    full adds the trend: every recurrent model's accuracy decreases with length (Kendall over
    every (length, seed)). The separation alone is the partial form; a condition the seeds cannot
    decide, with none decided against, makes the verdict inconclusive (one seed decides nothing).
    Every test is made at the Bonferroni level of the check's tests (:func:`lib.stats.family_level`)."""

    _inputs("figure_2ab", ("idx", idx, "R"), ("idx_ssm", idx_ssm, "R"))
    table = pd.concat([seed_table(idx), seed_table(idx_ssm)], ignore_index=True)
    archs = idx.config["archs"] + idx_ssm.config["archs"]
    tf, recurrent = next(a for a in archs if a.startswith("TF")), [a for a in archs if not a.startswith("TF")]
    longest = max(idx.config["lengths"])
    ran = {a: sorted(table[table["model"] == a]["N"]) for a in recurrent}  # Mamba stops earlier on a CPU
    level = stats.family_level(1 + 3 * len(recurrent))
    tf_high = stats.above(_seeds_at(table, tf, longest), 0.9, level=level)
    beaten = {a: stats.holds(stats.compare(_seeds_at(table, tf, ran[a][-1]), _seeds_at(table, a, ran[a][-1]),
                                           floor=0.0, ceiling=1.0, level=level), "greater") for a in recurrent}
    fails = {a: stats.below(_seeds_at(table, a, ran[a][-1]), 0.6, level=level)
             for a in recurrent}
    degrades = {a: stats.holds(stats.trend(ran[a], [_seeds_at(table, a, n) for n in ran[a]], level=level),
                               "decreasing") for a in recurrent}
    separation = stats.all_hold(tf_high, *beaten.values(), *fails.values())
    full = stats.all_hold(separation, *degrades.values())

    ours = (f"|Σ| = {idx.config['n_symbols']}, N = {_join(idx.config['lengths'])}, seed means: "
            + "; ".join(f"{a} {_join(table[table['model'] == a].sort_values('N')['mean'], '{:.2f}')}" for a in archs)
            + f". At the longest length run: {tf} {stats.describe_accuracy(_seeds_at(table, tf, longest))} "
              f"(above 0.9: {stats.said(tf_high)}); "
            + "; ".join(f"{a} at N = {ran[a][-1]} {stats.describe_accuracy(_seeds_at(table, a, ran[a][-1]))} (below 0.6: "
                        f"{stats.said(fails[a])}, beaten by {tf}: {stats.said(beaten[a])}, decreasing with N: "
                        f"{stats.said(degrades[a])})"
                        for a in recurrent)
            + f" (per-seed finals at each model's best learning rate; 95% intervals over seeds; each of the "
              f"{1 + 3 * len(recurrent)} tests at level {level:.4f}, Bonferroni)")
    s = setup.FIGURE_2AB
    return _check(s.ref, "sep-fig2ab",
                  "1-layer transformers learn index lookup at every length; recurrent models degrade with length "
                  "and fail at the longer lengths at every learning rate",
                  "TF-(1,64) near-perfect up to N = 400; LSTM, DSS, Mamba, RetNet (up to 6 x 256) degrade beyond ~100 "
                  "(figures, no numbers)", ours, results=(idx, idx_ssm), setup=s,
                  config=setup.ours_figure_2ab(idx, idx_ssm), **claims.outcome(full, separation))


def figure_2c(dyck):
    """Figure 2c (Sec. 6), decided over seeds at the longest length (each model at its best
    learning rate): the LSTM is near-perfect (its interval above 0.95) and beats the 1-layer
    transformer (Welch), the partial form; the claim in full adds the 2-layer transformer
    near-perfect too. Undecided conditions with none decided against: inconclusive. The three
    tests are made at their Bonferroni level (:func:`lib.stats.family_level`)."""

    _inputs("figure_2c", ("dyck", dyck, "R"))
    table = seed_table(dyck)
    archs, n_long = dyck.config["archs"], max(dyck.config["lengths"])
    tf1 = next(a for a in archs if a.startswith("TF-(1"))
    tf2 = [a for a in archs if a.startswith("TF-(2")]
    lstm = next(a for a in archs if a.startswith("LSTM"))
    at_long = {a: _seeds_at(table, a, n_long) for a in archs}
    level = stats.family_level(3)
    versus_tf1 = stats.compare(at_long[lstm], at_long[tf1], floor=0.0, ceiling=1.0, level=level)
    lstm_high = stats.above(at_long[lstm], 0.95, level=level)
    lstm_beats = stats.holds(versus_tf1, "greater")
    tf2_high = stats.above(at_long[tf2[0]], 0.95, level=level) if tf2 else False
    part = stats.all_hold(lstm_high, lstm_beats)
    s = setup.FIGURE_2C
    return _check(s.ref, "sep-fig2c",
                  "LSTMs and 2-layer transformers recognize Dyck-(2,2) up to long lengths; 1-layer transformers "
                  "struggle beyond ~100 and learn more slowly",
                  "TF-(2,64) and LSTM near-perfect to N = 400; TF-(1,256) near-perfect to ~100, then struggles "
                  "(figures, no numbers)",
                  f"at N = {n_long}: " + "; ".join(f"{a} {stats.describe_accuracy(at_long[a])}" for a in archs)
                  + f" (per-seed finals at each model's best learning rate; {lstm} vs {tf1} by Welch: {versus_tf1}; "
                  f"tests at level {level:.4f}, Bonferroni over 3)",
                  results=dyck, setup=s, config=setup.ours_figure_2c(dyck),
                  **claims.outcome(stats.all_hold(part, tf2_high), part))


def width_trends(mw) -> dict:
    """For each model kind of ``mamba_width`` (``"Mamba"``, ``"LSTM"``) and each length N, the trend
    of the per-seed final accuracies against width (:func:`lib.stats.trend`: Kendall's tau over
    every (width, seed) pair; ``"inconclusive"`` where it cannot decide). One test per length, so
    each is made at the Bonferroni level (5% over the lengths together): the paper's grid has five
    lengths, and at 5% each a flat LSTM would show a "trend" at one of them about a time in four."""

    table = width_table(mw)
    lengths = max(1, table["N"].nunique())
    level = 1 - (1 - stats.LEVEL) / lengths
    out = {}
    for kind in ("Mamba", "LSTM"):
        part = table[table["kind"] == kind]
        out[kind] = {int(n): stats.trend(list(rows["width"]), list(rows["per seed"]), level=level)
                     for n, rows in part.sort_values("width").groupby("N")}
    return out


def figure_3(mw):
    """Figure 3 (App. H.1) in a form that does not depend on the grid: at each length, is Mamba's
    accuracy increasing with width (over seeds, :func:`width_trends`), and is the LSTM's not? The
    paper: Mamba's accuracy "increases monotonically with the increase in the width"; for LSTMs
    "no such trend". Reproduced: Mamba increasing at every length where a trend is decided and at
    one at least, none decreasing, and the LSTM not increasing at those lengths; partly: the Mamba
    trend alone (the LSTM widens too); inconclusive: no length decides Mamba's trend; not
    reproduced: Mamba decreasing with width somewhere. The transformer's and the widest models'
    accuracies are reported beside it (the paper: even width 1024 is "much worse" than TF-(1,64))."""

    _inputs("figure_3", ("mw", mw, "R"))
    trends, table = width_trends(mw), width_table(mw)
    mamba, lstm = trends["Mamba"], trends["LSTM"]
    up = [n for n, t in mamba.items() if t == "increasing"]
    down = [n for n, t in mamba.items() if t == "decreasing"]
    lstm_up = [n for n in up if lstm.get(n) == "increasing"]
    mamba_trend = bool(up) and not down
    recurrent, tf = table[table["kind"] != "TF"], table[table["kind"] == "TF"]
    widest = recurrent[recurrent["width"] == recurrent["width"].max()]

    def at(rows, n):
        return stats.describe_accuracy(rows[rows["N"] == n]["per seed"].iloc[0])

    ours = "; ".join(
        f"N = {n}: Mamba {mamba[n]} with width, LSTM {lstm.get(n, 'not run')}"
        + "".join(f", {m} {at(widest[widest['model'] == m], n)}" for m in widest["model"].unique())
        + (f", {tf['model'].iloc[0]} {at(tf, n)}" if len(tf) else "") for n in sorted(mamba))
    s = setup.FIGURE_3
    return _check(s.ref, "sep-fig3",
                  "Mamba's accuracy on index lookup rises with its width at a given length; LSTMs show no such trend",
                  "widths 32 to 1024, N = 20 to 400: Mamba's accuracy increases monotonically with width; "
                  "LSTMs at chance above N = 100 at every width (figure, no numbers)",
                  ours + f" (per-seed finals at each point's best learning rate, {len(mw.config['seeds'])} seeds; "
                  "trend by Kendall's tau over (width, seed) pairs)",
                  mamba_trend and not lstm_up, partly=mamba_trend, inconclusive=not up and not down, results=mw,
                  setup=s, config=setup.ours_figure_3(mw))


def _equality_tests(config: dict) -> tuple[int, float]:
    """How many tests :func:`figure_4` makes (every model near-perfect on Eq-one at every length;
    the Eq-ncp comparison at every length and the transformer near-perfect at the longest; on
    Eq-random the same at the longest) and the Bonferroni level of each."""
    variants, archs, lengths = config["variants"], config["archs"], config["lengths"]
    tests = (len(archs) * len(lengths) if "one" in variants else 0) + (len(lengths) + 1) * ("ncp" in variants) \
        + 2 * ("random" in variants)
    return tests, stats.family_level(tests)


def equality_comparisons(eq) -> pd.DataFrame:
    """Figure 4's transformer-against-LSTM comparison at each (variant, N) but Eq-one's, over the
    per-seed finals at each point's best learning rate, as :func:`figure_4` makes it (Welch at the
    check's Bonferroni level)."""
    _inputs("equality_comparisons", ("eq", eq, "R"))
    seeds = equality_seed_table(eq).set_index(["variant", "model", "N"])["per seed"]
    archs = eq.config["archs"]
    tf, lstm = next(a for a in archs if a.startswith("TF")), next(a for a in archs if a.startswith("LSTM"))
    level = _equality_tests(eq.config)[1]
    return pd.DataFrame([{"variant": v, "N": n, "TF vs LSTM": stats.compare(seeds[(v, tf, n)], seeds[(v, lstm, n)],
                                                                            floor=0.0, ceiling=1.0, level=level)}
                         for v in eq.config["variants"] if v != "one" for n in eq.config["lengths"]])


def figure_4(eq):
    """Figure 4 (App. H.2): the paper's claim is a separation on all three variants: on Eq-random the
    transformer reaches >= 0.9 at the longest length and beats the LSTM; every model reaches >= 0.9
    on Eq-one at every length; on Eq-ncp the transformer reaches >= 0.9 at the longest length and
    beats the LSTM there, and is behind it at no length (at short lengths both may copy perfectly).
    Each "beats" is decided over seeds by :func:`lib.stats.compare` (Welch, at each point's best
    learning rate), each ">= 0.9" by the seeds' interval (:func:`lib.stats.versus`). The weaker form,
    what could hold at our scale, is the Eq-ncp ordering alone. Where no Eq-ncp comparison goes the
    other way but the longest cannot be decided, the verdict is inconclusive. Every test is
    made at the Bonferroni level of the check's tests (:func:`lib.stats.family_level`)."""

    _inputs("figure_4", ("eq", eq, "R"))
    seeds = equality_seed_table(eq).set_index(["variant", "model", "N"])["per seed"]
    c = eq.config
    n_long, variants, archs, lengths = max(c["lengths"]), c["variants"], c["archs"], c["lengths"]
    tf, lstm = next(a for a in archs if a.startswith("TF")), next(a for a in archs if a.startswith("LSTM"))
    tests, level = _equality_tests(c)
    decisions = equality_comparisons(eq).set_index(["variant", "N"])["TF vs LSTM"]

    def decide(variant, n):
        return decisions[(variant, n)]

    def high(variant, arch, n):  # near-perfect: the seeds' interval above 0.9
        return stats.above(seeds[(variant, arch, n)], 0.9, level=level)

    ncp = {n: decide("ncp", n) for n in lengths} if "ncp" in variants else {}
    rnd = {n: decide("random", n) for n in lengths} if "random" in variants else {}
    eq_one_easy = stats.all_hold(*(high("one", a, n) for a in archs for n in lengths)) if "one" in variants else False
    # both models may copy perfectly at short lengths: the order is "ahead at the longest, behind nowhere"
    ncp_order = stats.all_hold(stats.holds(ncp[n_long], "greater"), "less" not in ncp.values()) if ncp else False
    ncp_sep = stats.all_hold(high("ncp", tf, n_long), ncp_order) if ncp else False
    random_sep = stats.all_hold(high("random", tf, n_long), stats.holds(rnd[n_long], "greater")) if rnd else False
    s = setup.FIGURE_4
    ours = "; ".join(
        f"Eq-{v}: " + ", ".join(f"N = {n}: {tf} {stats.describe_accuracy(seeds[(v, tf, n)])} "
                                f"vs {lstm} {stats.describe_accuracy(seeds[(v, lstm, n)])}"
                                + (f" ({decide(v, n)})" if v != "one" else "") for n in lengths)
        for v in variants)
    return _check(s.ref, "sep-fig4",
                  "string equality: transformers near-perfect; LSTMs struggle on Eq-random at long lengths; Eq-one easy "
                  "for all; on Eq-ncp transformers beat narrow recurrent models",
                  "figures, no numbers (Eq-random and Eq-ncp plotted; N up to 400 and 800)",
                  ours + f" (per-seed finals at the best learning rate; TF vs LSTM decided by Welch over the seeds; "
                         f"each of the {tests} tests at level {level:.4f}, Bonferroni)",
                  results=eq, setup=s, config=setup.ours_figure_4(eq),
                  **claims.outcome(stats.all_hold(random_sep, eq_one_easy, ncp_sep), ncp_order))


def remark_h2(shortcuts):
    """The remark in App. H.2: the classification variants have shortcuts. On the book's own task
    samples at each length: comparing only the first few symbols of the halves classifies Eq-random
    with accuracy >= 0.95 and at least 1 - 2^-(prefix+1) (within the 95% interval of the sample),
    and comparing symbol counts classifies Eq-one exactly. ``shortcuts``: :func:`.analysis.shortcut_table`."""

    _inputs("remark_h2", ("shortcuts", shortcuts, "T"))
    prefix_col = next(col for col in shortcuts.columns if col.startswith("Eq-random, first"))
    exact_col = next(col for col in shortcuts.columns if col.startswith("1 - 2^-"))
    highs = [stats.proportion_interval(round(acc * n), n).high
             for acc, n in zip(shortcuts[prefix_col], shortcuts["samples"])]
    prefix_ok = bool((shortcuts[prefix_col] >= 0.95).all() and all(h >= e for h, e in zip(highs, shortcuts[exact_col])))
    counts_ok = bool((shortcuts["Eq-one, symbol counts"] == 1.0).all())
    return _check("Remark (App. H.2, shortcuts)", "sep-fig4",
                  "Eq-random is solved with high probability by storing the first few symbols, and Eq-one exactly "
                  "by symbol counts, so neither needs a state that grows with N",
                  "shortcuts exist (argument, no numbers)",
                  f"on {shortcuts['samples'].iloc[0]:,} samples of the book's tasks at N = {_join(shortcuts['N'])}: "
                  f"{prefix_col[11:]} {_join(shortcuts[prefix_col], '{:.3f}')} on Eq-random (>= 1 - 2^-(prefix+1) = "
                  f"{shortcuts[exact_col].iloc[0]:.3f} when every half is that long); symbol counts "
                  f"{_join(shortcuts['Eq-one, symbol counts'], '{:.3f}')} on Eq-one",
                  prefix_ok and counts_ok)
