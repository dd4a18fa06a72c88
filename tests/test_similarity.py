"""The similarity report (grader/similarity.py, issue 36).

Planted copies (renamed, reformatted, commented, reordered, from a classmate,
from the book's folded solution and from lib's own function) must be found;
answers written independently (four per exercise below, each a right answer
that passes its check, written in different styles: loops, broadcasting,
einsum, other helpers) must not be paired with each other or with the book.
The report reads answers as text and never runs them; the tests run the
independent answers only to show that they are real answers.
"""

import csv
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import lib.checks

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the grader package
sys.path.insert(0, str(ROOT / "tools"))
from grader import similarity  # noqa: E402

BOOK = similarity.book_solutions(ROOT / "chapters")
LIB = similarity.lib_sources([getattr(lib.checks, n) for n in lib.checks.__all__])


def _src(text):
    return textwrap.dedent(text).strip() + "\n"


# ------------------------------------------- independent answers (4 per exercise) --

INDEPENDENT = {
    "ex-em-e-step": ("em_e_step", [
        _src("""
            def e_step_spherical(X, weights, means, variances):
                n, d = X.shape
                K = len(weights)
                log_r = np.empty((n, K))
                for k in range(K):
                    diff = X - means[k]
                    log_r[:, k] = (np.log(weights[k]) - d / 2 * np.log(2 * np.pi * variances[k])
                                   - np.sum(diff * diff, axis=1) / (2 * variances[k]))
                top = log_r.max(axis=1, keepdims=True)
                r = np.exp(log_r - top)
                return r / r.sum(axis=1, keepdims=True)
        """),
        _src("""
            from scipy.special import logsumexp


            def e_step_spherical(X, weights, means, variances):
                # squared distances through the expansion |x|^2 - 2 x.mu + |mu|^2
                sq = (X**2).sum(1)[:, None] - 2 * X @ means.T + (means**2).sum(1)[None, :]
                sq = np.maximum(sq, 0.0)
                dim = X.shape[1]
                scores = np.log(weights) - 0.5 * dim * np.log(variances) - 0.5 * sq / variances
                return np.exp(scores - logsumexp(scores, axis=1)[:, None])
        """),
        _src("""
            def e_step_spherical(X, weights, means, variances):
                rows = []
                for x in X:
                    terms = []
                    for pi_k, mu_k, s2 in zip(weights, means, variances):
                        dist = float(np.dot(x - mu_k, x - mu_k))
                        terms.append(np.log(pi_k) - len(x) * 0.5 * np.log(2.0 * np.pi * s2) - dist / (2.0 * s2))
                    terms = np.array(terms)
                    biggest = terms.max()
                    weights_here = np.exp(terms - biggest)
                    rows.append(weights_here / weights_here.sum())
                return np.vstack(rows)
        """),
        _src("""
            def e_step_spherical(X, weights, means, variances):
                d = X.shape[-1]
                delta = np.einsum("nkd->nk", (X[:, np.newaxis] - means[np.newaxis]) ** 2)
                log_dens = -(delta / variances + d * np.log(2 * np.pi * variances)) / 2
                joint = log_dens + np.log(weights)
                joint -= joint.max(axis=-1, keepdims=True)
                p = np.exp(joint)
                p /= p.sum(axis=-1, keepdims=True)
                return p
        """),
    ]),
    "ex-em-m-step": ("em_m_step_spherical", [
        _src("""
            def m_step_spherical(X, resp):
                n, d = X.shape
                K = resp.shape[1]
                weights, means, variances = np.zeros(K), np.zeros((K, d)), np.zeros(K)
                for k in range(K):
                    r = resp[:, k]
                    total = r.sum()
                    weights[k] = total / n
                    means[k] = (r[:, None] * X).sum(axis=0) / total
                    variances[k] = (r * ((X - means[k]) ** 2).sum(axis=1)).sum() / (d * total)
                return weights, means, variances
        """),
        _src("""
            def m_step_spherical(X, resp):
                Nk = np.einsum("ik->k", resp)
                mu = np.einsum("ik,id->kd", resp, X) / Nk[:, None]
                # E[|x - mu|^2] per component (about the new means), then divide by the dimension
                diff = X[:, None, :] - mu[None, :, :]
                var = np.einsum("ik,ikd,ikd->k", resp, diff, diff) / Nk / X.shape[1]
                return Nk / X.shape[0], mu, var
        """),
        _src("""
            def m_step_spherical(X, resp):
                counts = resp.sum(axis=0)
                centres = (resp.T @ X) / counts[:, np.newaxis]
                spreads = []
                for k, c in enumerate(centres):
                    resid = X - c
                    spreads.append(resp[:, k] @ np.einsum("ij,ij->i", resid, resid))
                spreads = np.asarray(spreads) / (counts * X.shape[1])
                return counts / counts.sum(), centres, spreads
        """),
        _src("""
            def m_step_spherical(X, resp):
                n_points, n_dims = np.shape(X)
                mass = np.sum(resp, axis=0)
                pis = mass / n_points
                mus = np.dot(resp.T, X) / mass.reshape(-1, 1)
                gaps = np.linalg.norm(X[:, None, :] - mus[None], axis=2) ** 2
                sig2 = np.sum(resp * gaps, axis=0) / mass / n_dims
                return pis, mus, sig2
        """),
    ]),
    "ex-gda-mle": ("gda_mle", [
        _src("""
            def gda_mle(X, y):
                classes = np.unique(y)
                n, d = X.shape
                priors, means, covs = [], [], []
                for k in classes:
                    Xk = X[y == k]
                    mu = Xk.mean(axis=0)
                    centred = Xk - mu
                    priors.append(len(Xk) / n)
                    means.append(mu)
                    covs.append(centred.T @ centred / len(Xk))
                priors, means, covs = np.array(priors), np.array(means), np.array(covs)
                pooled = sum(p * c for p, c in zip(priors, covs))
                return priors, means, covs, pooled
        """),
        _src("""
            def gda_mle(X, y):
                K = y.max() + 1
                onehot = np.eye(K)[y]                      # (n, K)
                nk = onehot.sum(axis=0)
                means = onehot.T @ X / nk[:, None]
                diffs = X[:, None, :] - means[None, :, :]  # (n, K, d)
                covs = np.einsum("nk,nki,nkj->kij", onehot, diffs, diffs) / nk[:, None, None]
                pooled = np.einsum("nk,nki,nkj->ij", onehot, diffs, diffs) / len(y)
                return nk / len(y), means, covs, pooled
        """),
        _src("""
            def gda_mle(X, y):
                labels = sorted(set(y.tolist()))
                d = X.shape[1]
                scatter_total = np.zeros((d, d))
                out_means, out_covs, out_priors = [], [], []
                for label in labels:
                    pts = X[y == label]
                    m = np.mean(pts, axis=0)
                    S = np.zeros((d, d))
                    for p in pts:
                        S += np.outer(p - m, p - m)
                    scatter_total += S
                    out_means.append(m)
                    out_covs.append(S / len(pts))
                    out_priors.append(len(pts))
                out_priors = np.array(out_priors, dtype=float) / len(X)
                return out_priors, np.stack(out_means), np.stack(out_covs), scatter_total / len(X)
        """),
        _src("""
            def gda_mle(X, y):
                n_classes = int(np.max(y)) + 1
                sizes = np.bincount(y, minlength=n_classes)
                mu = np.array([np.average(X, axis=0, weights=(y == c)) for c in range(n_classes)])
                residual = X - mu[y]                     # every point minus its own class mean
                sigma = np.array([np.cov(residual[y == c], rowvar=False, ddof=0) for c in range(n_classes)])
                sigma = sigma.reshape(n_classes, X.shape[1], X.shape[1])
                shared = residual.T @ residual / X.shape[0]
                return sizes / sizes.sum(), mu, sigma, shared
        """),
    ]),
    "ex-dvg-newton": ("newton_step", [
        _src("""
            def newton_step(w, b, X, y):
                n, d = X.shape
                A = np.hstack([X, np.ones((n, 1))])
                theta = np.concatenate([w, [b]])
                z = A @ theta
                p = np.where(z >= 0, 1 / (1 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1 + np.exp(-np.abs(z))))
                grad = A.T @ (y - p)
                H = A.T @ (A * (p * (1 - p))[:, None])
                theta = theta + np.linalg.solve(H, grad)
                return theta[:d], float(theta[d])
        """),
        _src("""
            def newton_step(w, b, X, y):
                scores = X @ w + b
                prob = 0.5 * (1 + np.tanh(scores / 2))   # the logistic function, without overflow
                weight = prob * (1 - prob)
                # the blocks of the Hessian for (w, b)
                Hww = (X * weight[:, None]).T @ X
                Hwb = X.T @ weight
                Hbb = weight.sum()
                H = np.block([[Hww, Hwb[:, None]], [Hwb[None, :], np.array([[Hbb]])]])
                g = np.append(X.T @ (y - prob), np.sum(y - prob))
                step = np.linalg.solve(H, g)
                return w + step[:-1], b + step[-1]
        """),
        _src("""
            def newton_step(w, b, X, y):
                ones = np.ones(len(X))
                design = np.c_[X, ones]
                params = np.r_[w, b]
                mu = np.exp(-np.logaddexp(0.0, -(design @ params)))
                curvature = np.zeros((design.shape[1], design.shape[1]))
                gradient = np.zeros(design.shape[1])
                for row, target, m in zip(design, y, mu):
                    curvature += m * (1 - m) * np.outer(row, row)
                    gradient += (target - m) * row
                L = np.linalg.cholesky(curvature)
                params = params + np.linalg.solve(L.T, np.linalg.solve(L, gradient))
                return params[:-1], float(params[-1])
        """),
        _src("""
            def newton_step(w, b, X, y):
                Z = np.concatenate([X, np.ones_like(y, dtype=float)[:, None]], axis=1)
                t = Z.dot(np.append(w, b))
                sig = np.empty_like(t)
                pos = t >= 0
                sig[pos] = 1.0 / (1.0 + np.exp(-t[pos]))
                sig[~pos] = np.exp(t[~pos]) / (1.0 + np.exp(t[~pos]))
                S = sig * (1.0 - sig)
                info = np.einsum("i,ij,ik->jk", S, Z, Z)
                new = np.append(w, b) + np.linalg.lstsq(info, Z.T.dot(y - sig), rcond=None)[0]
                return new[:-1], new[-1]
        """),
    ]),
}


def _run(source, name):
    namespace = {"np": np}
    exec(compile(source, "<independent answer>", "exec"), namespace)
    return namespace[name]


@pytest.mark.parametrize("label", sorted(INDEPENDENT))
def test_the_independent_answers_are_right_and_long_enough_to_compare(label):
    check_name, answers = INDEPENDENT[label]
    checker = getattr(lib.checks, check_name)
    function = checker.__name__ if label != "ex-em-e-step" else "e_step_spherical"
    function = {"ex-em-e-step": "e_step_spherical", "ex-em-m-step": "m_step_spherical"}.get(label, function)
    for source in answers:
        assert checker(_run(source, function)).passed, source
        assert len(similarity.tokens(source)) >= similarity.MIN_TOKENS, source
    assert label in BOOK and len(similarity.tokens(BOOK[label])) > 0


def test_independent_answers_are_not_paired():
    answers = {f"student{i}": {} for i in range(4)}
    for label, (_, sources) in INDEPENDENT.items():
        for i, source in enumerate(sources):
            answers[f"student{i}"][label] = source
    rows = similarity.report(answers, BOOK, LIB)
    assert rows == [], rows
    # and the scores stay well below the line (the margin the README quotes)
    for label, (_, sources) in INDEPENDENT.items():
        toks = [similarity.tokens(s) for s in sources] + [similarity.tokens(BOOK[label])]
        worst = max(similarity.score(a, b) for i, a in enumerate(toks) for b in toks[i + 1:])
        assert worst < similarity.THRESHOLD - 0.05, (label, worst)


# ------------------------------------------------------------ planted copies --

ORIGINAL = INDEPENDENT["ex-em-m-step"][1][0]

RENAMED = _src("""
    def m_step_spherical(data, gamma):
        N, D = data.shape
        C = gamma.shape[1]
        pi_hat, mu_hat, var_hat = np.zeros(C), np.zeros((C, D)), np.zeros(C)
        for j in range(C):
            g = gamma[:, j]
            s = g.sum()
            pi_hat[j] = s / N
            mu_hat[j] = (g[:, None] * data).sum(axis=0) / s
            var_hat[j] = (g * ((data - mu_hat[j]) ** 2).sum(axis=1)).sum() / (D * s)
        return pi_hat, mu_hat, var_hat
""")

REFORMATTED = _src('''
    import numpy
    def m_step_spherical( X,resp ):
        """My own M-step (honest!)."""
        n,d=X.shape ; K=resp.shape[ 1 ]
        # allocate
        weights,means,variances=numpy.zeros(K),numpy.zeros((K,d)),numpy.zeros(K)
        for k in range( K ):
            r=resp[:,k]
            total=r.sum()   # soft count
            weights[k]=(total/n)
            means[k]=((r[:,None]*X).sum(axis=0))/total
            variances[k]=((r*(((X-means[k])**2).sum(axis=1))).sum())/(d*total)
        return (weights,means,variances)
''')

REORDERED = _src("""
    def m_step_spherical(X, resp):
        K = resp.shape[1]
        n, d = X.shape
        variances, weights, means = np.zeros(K), np.zeros(K), np.zeros((K, d))
        for k in range(K):
            r = resp[:, k]
            total = r.sum()
            means[k] = (r[:, None] * X).sum(axis=0) / total
            weights[k] = total / n
            variances[k] = (r * ((X - means[k]) ** 2).sum(axis=1)).sum() / (d * total)
        return weights, means, variances
""")

ALL_AT_ONCE = _src("""
    from numpy import zeros as Z
    def m_step_spherical(pts, w):
        m = w.shape[1]            # components
        a, b = pts.shape
        out_v, out_w, out_m = Z(m), Z(m), Z((m, b))
        for c in range(m):
            col = w[:, c]
            tot = col.sum()
            out_m[c] = (col[:, None] * pts).sum(axis=0) / tot
            out_w[c] = tot / a
            out_v[c] = (col * ((pts - out_m[c]) ** 2).sum(axis=1)).sum() / (b * tot)
        return out_w, out_m, out_v
""")


@pytest.mark.parametrize("copy", [RENAMED, REFORMATTED, REORDERED, ALL_AT_ONCE],
                         ids=["renamed", "reformatted", "reordered", "all-at-once"])
def test_a_planted_copy_is_found(copy):
    assert similarity.normalise(copy) == similarity.normalise(ORIGINAL)
    rows = similarity.report({"alice": {"ex-em-m-step": ORIGINAL}, "bob": {"ex-em-m-step": copy},
                              "carol": {"ex-em-m-step": INDEPENDENT["ex-em-m-step"][1][2]}}, BOOK, LIB)
    assert rows == [("ex-em-m-step", "alice", "bob", 1.0)], rows


def test_a_copy_with_a_few_edits_is_found_with_a_lower_score():
    edited = ORIGINAL.replace("for k in range(K):", "for k in range(K):\n        assert resp[:, k].min() >= 0")
    rows = similarity.report({"alice": {"ex-em-m-step": ORIGINAL}, "bob": {"ex-em-m-step": edited}})
    assert len(rows) == 1 and similarity.THRESHOLD <= rows[0][3] < 1.0, rows


def _rename_everything(source):
    """The book's or lib's code with every bound name changed, reformatted and commented."""
    import ast

    tree = ast.parse(source)
    bound = similarity._bound_names(tree)
    mapping = {name: f"my_{i}" for i, name in enumerate(sorted(bound))}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            node.id = mapping.get(node.id, node.id)
            return node

        def visit_arg(self, node):
            node.arg = mapping.get(node.arg, node.arg)
            return node

        def visit_FunctionDef(self, node):
            node.name = mapping.get(node.name, node.name)
            self.generic_visit(node)
            return node

    return "# my work\n" + ast.unparse(Rename().visit(tree)).replace(" = ", "=") + "\n"


def test_copies_of_the_book_and_of_lib_are_found():
    book_copy = _rename_everything(BOOK["ex-gda-mle"])
    lib_copy = _rename_everything(LIB["ex-em-m-step-full"] if "ex-em-m-step-full" in LIB else LIB["ex-em-m-step"])
    label = "ex-em-m-step-full" if "ex-em-m-step-full" in LIB else "ex-em-m-step"
    assert len(similarity.tokens(LIB[label])) >= similarity.MIN_TOKENS
    rows = similarity.report({"dave": {"ex-gda-mle": book_copy, label: lib_copy}}, BOOK, LIB)
    assert ("ex-gda-mle", "dave", "book", 1.0) in rows, rows
    assert (label, "dave", "lib", 1.0) in rows, rows


def test_a_branch_of_a_lib_function_copied_is_found():
    import ast

    lib_m_step = LIB["ex-em-m-step"]
    tree = ast.parse(lib_m_step)
    body = tree.body[0].body
    half = ast.Module(body=[ast.FunctionDef(name="m_step_spherical", args=tree.body[0].args,
                                            body=body[: max(2, len(body) // 2)] + [ast.Return(value=None)],
                                            decorator_list=[], returns=None, type_params=[])], type_ignores=[])
    part = _rename_everything(ast.unparse(ast.fix_missing_locations(half)))
    if len(similarity.tokens(part)) < similarity.MIN_TOKENS:
        pytest.skip("lib's m_step is too short to cut in half here")
    rows = similarity.report({"erin": {"ex-em-m-step": part}}, BOOK, LIB)
    assert [r[2] for r in rows] == ["lib"], rows


def test_short_answers_are_left_out():
    one_liner = "def sigmoid(t):\n    return 1 / (1 + np.exp(-t))\n"
    assert len(similarity.tokens(one_liner)) < similarity.MIN_TOKENS
    rows = similarity.report({"a": {"ex-dvg-sigmoid": one_liner}, "b": {"ex-dvg-sigmoid": one_liner}})
    assert rows == []
    rows = similarity.report({"a": {"x": one_liner}, "b": {"x": one_liner}}, min_tokens=5)
    assert rows == [("x", "a", "b", 1.0)]


def test_answers_that_do_not_parse_or_are_not_text_are_left_out():
    broken = "def f(:\n    return 1\n"
    rows = similarity.report({"a": {"x": broken}, "b": {"x": broken}, "c": {"x": None}, "d": {}},
                             {"x": broken}, min_tokens=0)
    assert rows == [] and similarity.normalise(broken) is None and similarity.tokens(None) == []
    huge = "def f(x):\n" + "    x = x + 1\n" * 10_000  # over MAX_SOURCE: left out, never compared
    assert similarity.tokens(huge) == [] and similarity.report({"a": {"x": huge}, "b": {"x": huge}}) == []


def test_imports_and_aliases_are_one_name():
    a = "import numpy as np\ndef f(x):\n    return np.exp(x) + np.log(x)\n"
    b = "from numpy import exp, log\ndef g(y):\n    return exp(y) + log(y)\n"
    c = "import numpy\ndef h(z):\n    return numpy.exp(z) + numpy.log(z)\n"
    assert similarity.normalise(a) == similarity.normalise(b) == similarity.normalise(c)


def test_dependent_statements_keep_their_order():
    a = "def f(x):\n    y = x + 1\n    z = y * 2\n    return z\n"
    b = "def f(x):\n    z = x * 2\n    y = z + 1\n    return y\n"  # another computation
    assert similarity.normalise(a) != similarity.normalise(b)


def test_the_csv_and_the_summary(tmp_path):
    rows = [("ex-em-m-step", "alice", "bob", 1.0), ("ex-gda-mle", "=cmd", "book", 0.912)]
    path = similarity.write_csv(rows, tmp_path)
    read = list(csv.reader(open(path)))
    assert read[0] == list(similarity.COLUMNS)
    assert read[1] == ["ex-em-m-step", "alice", "bob", "1.000"]
    assert read[2] == ["ex-gda-mle", "'=cmd", "book", "0.912"]  # never a spreadsheet formula
    lines = similarity.summary(rows)
    assert "alice and bob" in lines[1] and "the book's solution" in lines[2]
    assert "no pair" in similarity.summary([])[0]


def test_answers_are_read_from_a_submission_by_the_cells_the_checks_follow():
    import nbformat

    from grader import find

    page = "04_em_gaussian_mixtures"
    edition = find.load_editions()[page]
    nb = nbformat.read(ROOT / "student" / f"{page}.ipynb", as_version=4)
    answers = similarity.answers_of(nb, edition["checks"])
    assert set(answers) == {c["exercise"] for c in edition["checks"]}
    assert "def e_step_spherical" in answers["ex-em-e-step"]
    assert similarity.answers_of({"cells": "not a list"}, edition["checks"]) == {}
    # two untouched starters are not a copy
    starter = "def f(X, resp):\n    " + "\n    ".join(f"a{i} = X[{i}] * resp[{i}] + {i}" for i in range(8)) + \
        "\n    raise NotImplementedError\n"
    assert len(similarity.tokens(starter)) >= similarity.MIN_TOKENS
    both = {"a": {"x": starter}, "b": {"x": starter}}
    assert similarity.report(both, starters={"x": starter}) == []
    assert similarity.report(both) == [("x", "a", "b", 1.0)]
